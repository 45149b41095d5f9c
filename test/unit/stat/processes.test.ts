// discover/processes.ts on the four-node fixture: memory per node with several huge page
// sizes, interleaved mappings, kernel threads, zombies, vanished processes, pattern matching.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findPids, memoryFromNumaMaps, readProcessMemory } from '../../../src/discover/processes.js';
import { cpuSecondsByNode, createSampler, sampleProcesses } from '../../../src/discover/process_sampler.js';
import { commAsName } from '../../../src/sysfs/proc_list.js';
import { openRoot } from '../../../src/sysfs/root.js';
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
  const found = (specs: string[]) => {
    const { pids, unmatched } = findPids(root, specs);
    return { pids, unmatched };
  };
  assert.deepEqual(found(['1302', 'postgres', '1201']), { pids: [1201, 1302], unmatched: [] });
  assert.deepEqual(found(['-Xmx8g']), { pids: [1302], unmatched: [] });
  assert.deepEqual(found(['kworker/1']), { pids: [1100], unmatched: [] });
  assert.deepEqual(found(['no-such-thing']), { pids: [], unmatched: ['no-such-thing'] });
  // The names read to match, of the processes it gives back.
  assert.deepEqual([...findPids(root, ['postgres']).names], [[1201, 'postgres']]);
  assert.deepEqual([...findPids(root, ['1201']).names], [], 'a PID given as digits: nothing read');
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

/** A tree with the given processes' files (relative to proc/PID). */
function procTree(procs: Record<number, Record<string, string>>): {
  root: ReturnType<typeof openRoot>;
  done: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-findpids-'));
  for (const [pid, files] of Object.entries(procs)) {
    mkdirSync(join(dir, 'proc', pid), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'proc', pid, name), text);
  }
  return { root: openRoot(dir), done: () => rmSync(dir, { recursive: true, force: true }) };
}

const status = (name: string) => `Name:\t${name}\nState:\tS (sleeping)\nThreads:\t1\n`;

test("findPids matches comm as status's Name shows it (a backslash doubled, a newline as \\n), as numastat reads Name", () => {
  const t = procTree({
    10: { comm: 'a\\b\n', status: status('a\\\\b'), cmdline: 'x\0' },
    11: { comm: 'c\nd\n', status: status('c\\nd'), cmdline: 'y\0' },
  });
  try {
    assert.deepEqual(findPids(t.root, ['a\\\\b']).pids, [10]);
    assert.deepEqual(findPids(t.root, ['c\\nd']).pids, [11]);
    assert.deepEqual(findPids(t.root, ['c\nd']).unmatched, ['c\nd']);
  } finally {
    t.done();
  }
});

test('findPids takes status\'s Name where a capture has no comm, and matches at most 2,047 characters of "NAME CMDLINE"', () => {
  const long = `${'z'.repeat(2040)}\0tail-beyond\0`;
  const t = procTree({
    20: { status: status('olddaemon'), cmdline: '/usr/sbin/olddaemon\0--flag\0' },
    21: { comm: 'java\n', status: status('java'), cmdline: long },
  });
  try {
    assert.deepEqual(findPids(t.root, ['olddaemon --flag']).pids, [20]);
    assert.deepEqual(findPids(t.root, ['java zzz']).pids, [21]);
    // "java " + 2,040 z's + " tail...": the 2,047th character is the second z after the space.
    assert.deepEqual(findPids(t.root, ['zzz tail']).unmatched, ['zzz tail']);
    assert.deepEqual(findPids(t.root, ['olddaemon', 'java']).pids, [20, 21]);
  } finally {
    t.done();
  }
});

test('commAsName escapes as the kernel writes Name (fs/proc/array.c proc_task_name)', () => {
  assert.equal(commAsName('kworker/0:1-events'), 'kworker/0:1-events');
  assert.equal(commAsName('a\\b\nc'), 'a\\\\b\\nc');
});

test('findPids reads comm, not status, and a command line only where the name does not match', () => {
  const t = procTree({
    30: { comm: 'java\n', status: status('java'), cmdline: '/usr/bin/java\0' },
    31: { comm: 'nginx\n', status: status('nginx'), cmdline: '/usr/sbin/nginx\0' },
  });
  try {
    const read: string[] = [];
    const root = { ...t.root, onAccess: (kind: string, rel: string) => void (kind === 'file' && read.push(rel)) };
    assert.deepEqual(findPids(root, ['java']).pids, [30]);
    assert.deepEqual(read, ['proc/30/comm', 'proc/31/comm', 'proc/31/cmdline']);
  } finally {
    t.done();
  }
});
