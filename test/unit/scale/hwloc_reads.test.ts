// Every topo view builds hwloc's tree of the machine, so its CPU side is read on every topo: a
// thread of a core read before, or a CPU of a cache read before, reads none of its own files
// (their masks say what it shares), and the facts are those of reading every CPU's files.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { discoverHwlocFacts, discoverHwlocTreeFacts } from '../../../src/discover/hwloc_facts.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { renderHwlocXml } from '../../../src/render/topo_hwloc_xml.js';
import type { CoreFiles } from '../../../src/sysfs/cpu_topology.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { type ScaleShape, TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

/** 2 sockets x 2 nodes x 8 cores x 2 threads: 64 CPUs, 32 cores, an L3 a node. */
const SHAPE: ScaleShape = { ...TEST, coresPerNode: 8, procs: 1, threadsPerProc: 1, irqsPerDevice: 1 };
const CPUS = SHAPE.sockets * SHAPE.nodesPerSocket * SHAPE.coresPerNode * SHAPE.threadsPerCore;
const CORES = CPUS / SHAPE.threadsPerCore;
const base = mkdtempSync(join(tmpdir(), 'numakit-scale-hwloc-'));
writeScaleCapture(base, SHAPE);
after(() => rmSync(base, { recursive: true, force: true }));

const here = (rel: string) => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
/** The shipped examples and the captured trees (lab guests' kernels, odd and broken ones). */
const TREES = ['examples', 'test/fixtures/hwloc-lab', 'test/fixtures/topo', 'test/fixtures/harden'].flatMap((d) =>
  readdirSync(here(d), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(here(d), e.name)),
);

test("hwloc's CPU side: each core's, package's and cache's files read once, not each CPU's", () => {
  const reads = new Map<string, number>();
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file') reads.set(rel, (reads.get(rel) ?? 0) + 1);
    },
  };
  const facts = discoverHwlocTreeFacts(root, { everyFile: false });
  assert.equal(facts.cpus?.length, CPUS, 'every online CPU');
  const cpuFiles = [...reads].filter(([rel]) => /\/cpu\d+\/(topology|cache)\//.test(rel));
  // cpu0's package_cpus is read once more: whether the kernel has it tells the names it uses.
  const probe = 'sys/devices/system/cpu/cpu0/topology/package_cpus';
  assert.deepEqual(
    cpuFiles.filter(([rel, n]) => n > (rel === probe ? 2 : 1)),
    [],
    'no CPU file read twice',
  );
  const readers = (what: string) =>
    new Set(cpuFiles.filter(([rel]) => rel.includes(`/${what}/`)).map(([rel]) => /\/cpu(\d+)\//.exec(rel)![1]));
  // The first thread of each core reads its core; the second thread of none.
  assert.equal(readers('topology').size, CORES, 'topology files of one thread a core');
  // One CPU an L3 (the capture has only L3s: index3).
  assert.equal(readers('cache').size, SHAPE.sockets * SHAPE.nodesPerSocket, 'cache files of one CPU an L3');
  // A CPU's files grow with its cores, not with CPUs x levels x ten probed indexes.
  assert.ok(cpuFiles.length <= 6 * CORES, `${cpuFiles.length} CPU files read for ${CORES} cores`);
});

test('read once, the tree is the tree of reading every CPU: the generated machine, examples and captures', () => {
  for (const dir of [base, ...TREES]) {
    const cores = new Map<number, CoreFiles>();
    const t = discoverTopology(openRoot(dir), { record: cores });
    const shared = renderHwlocXml(t, discoverHwlocFacts(openRoot(dir), { everyFile: false }));
    const every = renderHwlocXml(t, discoverHwlocFacts(openRoot(dir), { everyFile: true }));
    assert.equal(shared, every, dir);
    // And with each core as numakit's topology read it (topo: one reader of the core's files).
    assert.equal(renderHwlocXml(t, discoverHwlocFacts(openRoot(dir), { everyFile: false, cores })), every, dir);
  }
});

test("hwloc's CPU side takes each core's mask and id, and its cluster's id, from numakit's topology", () => {
  const reads: string[] = [];
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file' && /\/topology\/(core_cpus|thread_siblings|core_id|cluster_id)/.test(rel)) reads.push(rel);
    },
  };
  const cores = new Map<number, CoreFiles>();
  discoverTopology(root, { record: cores });
  assert.equal(cores.size, CPUS, 'every CPU read its own core files (a recording root shares nothing)');
  reads.length = 0;
  const facts = discoverHwlocTreeFacts(root, { everyFile: false, cores });
  assert.equal(facts.cpus?.length, CPUS);
  assert.deepEqual(reads, []);
  assert.deepEqual(facts, discoverHwlocTreeFacts(openRoot(base), { everyFile: false }));
});
