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
    assert.equal(distanceColor(10, 32), 'hsl(120, 60%, 82%)');
    assert.equal(distanceColor(32, 32), 'hsl(0, 60%, 60%)');
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
