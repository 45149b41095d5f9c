// `numakit topo --svg/--html`: the picture of every example (one box per node, memory-only
// nodes marked, devices on their node, unknown-node devices apart, the distance heatmap),
// golden SVGs of two examples, escaping, and the file errors.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { renderTopoSvg } from '../../../src/render/topo_svg.js';
import { renderTopoText } from '../../../src/render/topo_text.js';
import type { Device } from '../../../src/model/topology.js';
import { esc, distanceColor } from '../../../src/render/svg/svg.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { assertGolden, runMain } from '../../helpers/cli.js';

const examples = readdirSync(EXAMPLES_DIR).filter((n) => existsSync(join(EXAMPLES_DIR, n, 'manifest.json')));
const count = (s: string, re: RegExp) => s.match(re)?.length ?? 0;

describe('topo --svg', () => {
  for (const name of examples) {
    it(`${name}: one box per node, every CPU, the heatmap, devices on their node`, () => {
      const t = discoverTopology(openRoot(join(EXAMPLES_DIR, name)));
      const svg = renderTopoSvg(t);
      assert.equal(count(svg, /<g class="node" /g), t.nodes.length);
      assert.equal(
        count(svg, /class="cpu( offline)?" /g),
        t.nodes.reduce((s, n) => s + Math.max(n.cpus.length, t.cpus.filter((c) => c.node === n.id).length), 0),
      );
      assert.equal(count(svg, /<g class="dist" /g), t.nodes.length > 1 ? t.nodes.length ** 2 : 0);
      assert.equal(
        count(svg, /class="node-box memory-only"/g),
        t.nodes.filter((n) => n.cpus.length === 0 && n.hasMemory).length,
      );
      for (const d of t.devices.filter((x) => x.kind !== 'block'))
        assert.ok(svg.includes(esc(d.name)), `${d.kind} ${d.name}`);
      assert.equal(
        svg.includes('Unknown node (firmware gives no numa_node)'),
        t.devices.some((d) => d.node === null && d.kind !== 'block'),
      );
    });
  }

  it('golden pictures of cxl-3node (memory-only node, unknown-node NVMe) and epyc-nps4', async () => {
    for (const name of ['cxl-3node', 'epyc-nps4']) {
      const r = await runMain(['--example', name, 'topo', '--svg', '-']);
      assert.equal(r.code, 0, r.err);
      assertGolden(`topo/example-${name}.svg`, r.out);
    }
  });

  it('escapes what the machine names; colours go green to red with distance', () => {
    assert.equal(esc('<eth0 & "x">'), '&lt;eth0 &amp; &quot;x&quot;&gt;');
    assert.equal(distanceColor(10), 'hsl(120, 60%, 82%)');
    assert.equal(distanceColor(32), 'hsl(0, 60%, 60%)');
    assert.equal(distanceColor(255), 'hsl(0, 60%, 60%)');
  });

  /** Fill of the (from, to) cell of the heatmap. */
  const cellFill = (svg: string, from: number, to: number) =>
    new RegExp(`<g class="dist" data-from="${from}" data-to="${to}"><rect [^>]*fill="([^"]+)"`).exec(svg)?.[1];
  const svgOf = (name: string) => renderTopoSvg(discoverTopology(openRoot(join(EXAMPLES_DIR, name))));

  it('the heatmap colours one absolute scale, with its legend: EPYC 12 is not drawn as red as a 2-socket 21', () => {
    const epyc = svgOf('epyc-nps4'); // 10 and 12 only
    const twoSocket = svgOf('spark-2s'); // 10 and 21
    const cxl = svgOf('lab-3node-cxl'); // 10, 21, 30, 32
    assert.equal(cellFill(epyc, 0, 1), distanceColor(12));
    assert.notEqual(cellFill(epyc, 0, 1), cellFill(twoSocket, 0, 1), 'the farthest cell of each is not the same red');
    assert.equal(cellFill(twoSocket, 0, 1), cellFill(cxl, 0, 1), '21 is one colour whatever else the machine has');
    for (const svg of [epyc, twoSocket, cxl]) {
      const steps = [...svg.matchAll(/<g class="legend-step" data-distance="(\d+)"><rect [^>]*fill="([^"]+)"/g)];
      assert.deepEqual(
        steps.map((m) => Number(m[1])),
        [10, 12, 16, 21, 26, 32],
      );
      for (const m of steps) assert.equal(m[2], distanceColor(Number(m[1])));
      assert.match(svg, />32\+<\/text>/);
    }
  });

  it('the heading and legend fit the picture on 2-node machines ("Distances (SLIT)" is not clipped)', () => {
    for (const name of ['spark-2s', 'lab-2node']) {
      const svg = svgOf(name);
      const width = Number(/^<svg [^>]*width="(\d+)"/.exec(svg)![1]);
      const at = Number(/<text x="(\d+)" y="\d+" class="heading">Distances \(SLIT\)<\/text>/.exec(svg)![1]);
      // 13px bold: about 8px a character; the legend's label (11px) is longer still.
      assert.ok(at + 'Distances (SLIT)'.length * 8 <= width - 12, `${name}: heading at ${at} in ${width}`);
      const label = /<g class="legend"><text x="(\d+)" y="\d+" class="axis">([^<]+)</.exec(svg)!;
      assert.ok(Number(label[1]) + label[2]!.length * 6.5 <= width - 12, `${name}: legend label`);
    }
  });

  it('shows every device topo lists, block devices too (a virtio disk vda, on its node and on an unknown one)', () => {
    const t = discoverTopology(openRoot(join(EXAMPLES_DIR, 'lab-2node')));
    const vda: Device = {
      kind: 'block',
      name: 'vda',
      node: 0,
      pciAddress: '0000:00:02.0',
      transport: null,
      driver: 'virtio_blk',
      details: {},
      irqs: [24, 25],
    };
    const vdb = { ...vda, name: 'vdb', node: null };
    const svg = renderTopoSvg({ ...t, devices: [...t.devices, vda, vdb] });
    const text = renderTopoText({ ...t, devices: [...t.devices, vda, vdb] });
    for (const name of ['vda', 'vdb']) {
      assert.match(text, new RegExp(`block ${name}\\b`));
      assert.match(svg, new RegExp(`block ${name}\\b`), `the picture shows ${name} as topo does`);
    }
  });

  it('--svg FILE and --html FILE write files; a bad path is one line; formats exclude each other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-svg-'));
    try {
      assert.equal((await runMain(['--example', 'epyc-nps4', 'topo', '--svg', join(dir, 'm.svg')])).code, 0);
      assert.match(readFileSync(join(dir, 'm.svg'), 'utf8'), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.equal((await runMain(['--example', 'epyc-nps4', 'topo', '--html', join(dir, 'm.html')])).code, 0);
      const html = readFileSync(join(dir, 'm.html'), 'utf8');
      assert.match(html, /^<!doctype html>/);
      assert.equal(count(html, /<g class="node" /g), 4);
      assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org)/, 'no scripts, nothing fetched from elsewhere');
      const bad = await runMain(['--example', 'epyc-nps4', 'topo', '--svg', join(dir, 'no/such/dir/m.svg')]);
      assert.equal(bad.code, 1);
      assert.match(bad.err, /topo: --svg .*no\/such\/dir\/m\.svg: no such directory/);
      const both = await runMain(['topo', '--svg', 'a', '--json']);
      assert.equal(both.code, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
