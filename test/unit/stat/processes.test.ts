// discover/processes.ts on the four-node fixture: memory per node with several huge page
// sizes, interleaved mappings, kernel threads, zombies, vanished processes, pattern matching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findPids, memoryFromNumaMaps, readProcessMemory } from '../../../src/discover/processes.js';
import { cpuSecondsByNode, createSampler, sampleProcesses } from '../../../src/discover/process_sampler.js';
import { fixtureRoot } from './helpers.js';

const root = fixtureRoot('four-node');
const MiB = 1024 * 1024;

test('each mapping counts with its own page size: 1 GiB + 2 MiB huge pages on one node', () => {
  const p = readProcessMemory(root, 1403);
  assert.ok(p && p.memory.kind === 'ok');
  assert.equal(p.memory.nodes['1']!.hugeBytes, 1024 * MiB + 3 * 2 * MiB);
  assert.equal(p.memory.nodes['1']!.stackBytes, 10 * 4096);
  assert.equal(p.memory.totalBytes, 1030 * MiB + 40960);
});

test("numastat's units (everything huge at the default size) reproduce its miscount of 1 GiB pages", () => {
  const p = readProcessMemory(root, 1403, { units: { pageSize: 4096, hugePageSize: 2 * MiB } });
  assert.ok(p && p.memory.kind === 'ok');
  assert.equal(p.memory.nodes['1']!.hugeBytes, 4 * 2 * MiB);
});

test('an interleaved mapping lands evenly on its nodes, with the policy recorded', () => {
  const p = readProcessMemory(root, 1302, { policies: true });
  assert.ok(p && p.memory.kind === 'ok');
  for (const n of ['0', '1', '2']) assert.ok(p.memory.nodes[n]!.privateBytes >= 50000 * 4096, n);
  assert.equal(p.memory.policies['interleave:0-3'], 200000 * 4096);
  assert.equal(p.memory.nodes['3']!.heapBytes, 129 * 4096);
});

test('a kernel thread and a zombie have readable but empty numa_maps: no memory, not an error', () => {
  for (const pid of [1100, 1504]) {
    const p = readProcessMemory(root, pid);
    assert.ok(p && p.memory.kind === 'ok', String(pid));
    assert.equal(p.memory.totalBytes, 0);
    assert.deepEqual(p.memory.nodes, {});
  }
});

test('a process that vanished (directory listed, files gone) or never existed reads as null', () => {
  assert.equal(readProcessMemory(root, 1605), null);
  assert.equal(readProcessMemory(root, 99999), null);
});

test('memoryFromNumaMaps splits Huge/Heap/Stack/Private per node and sums a Total', () => {
  const m = memoryFromNumaMaps(
    '1000 default heap anon=2 N0=2 kernelpagesize_kB=4\n2000 default stack anon=1 N1=1 kernelpagesize_kB=64\n',
    { policies: true },
  );
  assert.deepEqual(m, {
    kind: 'ok',
    totalBytes: 8192 + 65536,
    policies: { default: 8192 + 65536 },
    nodes: {
      '0': { hugeBytes: 0, heapBytes: 8192, stackBytes: 0, privateBytes: 0, totalBytes: 8192 },
      '1': { hugeBytes: 0, heapBytes: 0, stackBytes: 65536, privateBytes: 0, totalBytes: 65536 },
    },
  });
});

test('findPids: digits are PIDs, patterns match "name cmdline", results sorted and unique', () => {
  assert.deepEqual(findPids(root, ['1302', 'postgres', '1201']), { pids: [1201, 1302], unmatched: [] });
  assert.deepEqual(findPids(root, ['-Xmx8g']), { pids: [1302], unmatched: [] });
  assert.deepEqual(findPids(root, ['kworker/1']), { pids: [1100], unmatched: [] });
  assert.deepEqual(findPids(root, ['no-such-thing']), { pids: [], unmatched: ['no-such-thing'] });
});

test('findPids never matches the calling process itself', () => {
  assert.deepEqual(findPids(root, ['postgres'], { self: 1201 }).pids, []);
});

test("cpuSecondsByNode puts each thread's tick delta on the node of its last CPU", () => {
  const cpuNode = new Map([
    [0, 0],
    [1, 0],
    [2, 1],
    [3, 1],
  ]);
  const before = new Map([
    [10, { ticks: 100, processor: 0 }],
    [11, { ticks: 50, processor: 2 }],
  ]);
  const after = new Map([
    [10, { ticks: 150, processor: 1 }],
    [11, { ticks: 50, processor: 3 }],
    [12, { ticks: 30, processor: 3 }],
  ]);
  assert.deepEqual(cpuSecondsByNode(before, after, { cpuNode: cpuNode }), { '0': 0.5, '1': 0.3 });
});

test('sampleProcesses (no window) takes every process with resident memory and its CPU nodes', async () => {
  const s = await sampleProcesses(root, { windowMs: 0 });
  assert.deepEqual(
    s.map((p) => p.pid),
    [1201, 1302, 1403],
  );
  const pg = s.find((p) => p.pid === 1201)!;
  assert.deepEqual(pg.cpuNodes, { '0': 5, '1': 3 });
  assert.deepEqual(pg.lastNodes, [0, 1]);
  assert.deepEqual(pg.memsAllowed, [0, 1, 2, 3]);
});

test('sampleProcesses waits the window with the injected sleep', async () => {
  const waited: number[] = [];
  const s = await sampleProcesses(root, { windowMs: 250, pids: [1403], sleep: async (ms) => void waited.push(ms) });
  assert.deepEqual(waited, [250]);
  assert.deepEqual(s[0]!.cpuNodes, {}); // a static fixture: no CPU time in the window
  assert.deepEqual(s[0]!.lastNodes, [0]);
});

test('createSampler: CPU time since the previous call, over the elapsed window', () => {
  const s = createSampler(root);
  const first = s.sample(1000);
  assert.deepEqual(first.find((p) => p.pid === 1201)!.cpuNodes, { '0': 5, '1': 3 });
  const second = s.sample(2500);
  const pg = second.find((p) => p.pid === 1201)!;
  assert.equal(pg.windowSeconds, 1.5);
  assert.deepEqual(pg.cpuNodes, {}); // nothing ran between the two reads of a static tree
});

test('policies are collected only when asked for (a string per mapping)', () => {
  const p = readProcessMemory(root, 1302);
  assert.ok(p && p.memory.kind === 'ok');
  assert.deepEqual(p.memory.policies, {});
});

test('a numa_maps that cannot be parsed names the file and line', () => {
  assert.throws(() => memoryFromNumaMaps('1000 default N0=1\nzz default N0=1\n'), /:2: not a numa_maps line/);
});
