// numakit serve in a 3-node guest with a memory-only (CXL-like) node, one boot: its
// node_memory_numa_* equal Debian's node_exporter --collector.meminfo_numa on every node of a
// real multi-node kernel, distances and node info are the guest's, the top processes carry
// their locality, and topo --svg draws the three nodes with the memory-only one marked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertSameAsNodeExporter, value } from '../unit/serve/helpers.js';
import { sectionOk } from './assert.js';
import { NUMAKIT } from './numakit.js';
import { runSections, type SectionsRun } from './sections.js';
import { THREE_NODE_CXL } from './topologies.js';

// Loopback is down in the guest until brought up; the guest is its own network, so fixed ports
// inside it collide with nothing on the host. busybox (installed by .ci/run for the lab's init)
// brings it up and fetches: a fresh Debian may have neither iproute2 nor curl.
const GET = (port: number, file: string) => `busybox wget -q -O "$LAB_OUT/${file}" http://127.0.0.1:${port}/metrics`;
const SCRAPE = `busybox ip link set lo up
prometheus-node-exporter --web.listen-address=127.0.0.1:9100 --collector.disable-defaults --collector.meminfo_numa 2>/dev/null & NE=$!
${NUMAKIT} serve --listen 127.0.0.1:10464 --doctor-interval 1h >/dev/null & NK=$!
for i in $(seq 1 240); do ${GET(10464, 'nk1.txt')} && ${GET(9100, 'ne.txt')} && break; sleep 0.5; done
${GET(10464, 'nk1.txt')} && ${GET(9100, 'ne.txt')} && ${GET(10464, 'nk2.txt')}
kill -TERM $NK $NE; wait $NK; echo "serve exit $?"`;

describe('serve in a 3node-cxl guest', () => {
  let run: SectionsRun;
  before(async () => {
    run = await runSections(THREE_NODE_CXL, { scrape: SCRAPE, svg: `${NUMAKIT} topo --svg -` }, { timeoutMs: 300_000 });
  });
  after(() => run?.cleanup());
  const out = (f: string) => readFileSync(join(run.outDir, f), 'utf8');

  it('node_memory_numa_* equal node_exporter --collector.meminfo_numa on all three nodes; SIGTERM exits 0', () => {
    assert.match(sectionOk(run, 'scrape').stdout, /serve exit 0/);
    assertSameAsNodeExporter(out('nk1.txt'), out('ne.txt'), out('nk2.txt'));
    for (const n of [0, 1, 2])
      assert.ok(value(out('nk1.txt'), `node_memory_numa_MemTotal{node="${n}"}`)! > 0, `node ${n}`);
  });

  it("distances and node info are the guest's; the memory-only node has no CPU", () => {
    const t = out('nk1.txt');
    for (const [a, row] of THREE_NODE_CXL.distances!.entries())
      for (const [b, d] of row.entries()) {
        assert.equal(value(t, `numakit_node_distance_info{node="${a}",peer="${b}",distance="${d}"}`), 1);
      }
    assert.match(t, /^numakit_node_info\{node="2",cpus="0",has_cpu="false",has_memory="true",/m);
    assert.ok(value(t, 'numakit_processes_numa_maps_read')! > 0, 'a multi-node kernel: numa_maps read');
    assert.match(t, /^numakit_process_locality\{pid="\d+",name="[^"]+"\} [\d.]+$/m);
    assert.equal(value(t, 'numakit_scrape_partial'), 0);
  });

  it('topo --svg: three node boxes, node 2 marked memory-only, the 3x3 heatmap', () => {
    const svg = sectionOk(run, 'svg').stdout;
    assert.equal(svg.match(/<g class="node" /g)?.length, 3);
    assert.equal(svg.match(/class="node-box memory-only"/g)?.length, 1);
    assert.equal(svg.match(/<g class="dist" /g)?.length, 9);
  });
});
