// Pure parts of a paced move: what it walks (planMove), how it paces (pauseMs, nextBatchBytes),
// and the readers it walks from (/proc/PID/maps joined with numa_maps).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinAnonRanges } from '../../../src/discover/anon_ranges.js';
import { planMove } from '../../../src/policy/agent/move_plan.js';
import { MAX_BATCH_BYTES, MIN_BATCH_BYTES, nextBatchBytes, pauseMs } from '../../../src/policy/agent/pace.js';
import { parseProcMaps } from '../../../src/sysfs/proc_maps.js';

const range = (start: number, pages: Record<number, number>, o: { end?: number; pageBytes?: number } = {}) => ({
  start,
  end: o.end ?? start + 0x1000000,
  pageBytes: o.pageBytes ?? 4096,
  pages: new Map(Object.entries(pages).map(([n, c]) => [Number(n), c])),
});

describe('planMove', () => {
  const cases: {
    name: string;
    ranges: ReturnType<typeof range>[];
    from: number[];
    to: number[];
    spans: [number, boolean, number, number | null][];
    target: [number, number][];
    bytes: number;
  }[] = [
    {
      name: 'pages only on the source: direct',
      ranges: [range(0x1000, { 1: 100 })],
      from: [1],
      to: [0],
      spans: [[0x1000, false, 100, 0]],
      target: [[1, 0]],
      bytes: 100 * 4096,
    },
    {
      name: 'pages on the target too: queried',
      ranges: [range(0x1000, { 0: 5, 1: 100 })],
      from: [1],
      to: [0],
      spans: [[0x1000, true, 100, null]],
      target: [[1, 0]],
      bytes: 100 * 4096,
    },
    {
      name: 'pages on a memory-only node (not a source): queried, never counted',
      ranges: [range(0x1000, { 1: 10, 3: 90 })],
      from: [1],
      to: [0],
      spans: [[0x1000, true, 10, null]],
      target: [[1, 0]],
      bytes: 10 * 4096,
    },
    {
      name: 'no page on a source: not walked',
      ranges: [range(0x1000, { 0: 10 }), range(0x9000000, { 1: 1 })],
      from: [1],
      to: [0],
      spans: [[0x9000000, false, 1, 0]],
      target: [[1, 0]],
      bytes: 4096,
    },
    {
      name: 'two sources to two targets (node_remap): queried, each to its own',
      ranges: [range(0x1000, { 2: 10, 3: 10 })],
      from: [2, 3],
      to: [0, 1],
      spans: [[0x1000, true, 20, null]],
      target: [
        [2, 0],
        [3, 1],
      ],
      bytes: 20 * 4096,
    },
    {
      name: 'two sources to one target: direct',
      ranges: [range(0x1000, { 2: 10, 3: 10 })],
      from: [2, 3],
      to: [0],
      spans: [[0x1000, false, 20, 0]],
      target: [
        [2, 0],
        [3, 0],
      ],
      bytes: 20 * 4096,
    },
    {
      name: 'two sources to two targets, one source in this mapping: direct to its own target',
      ranges: [range(0x1000, { 3: 10 })],
      from: [2, 3],
      to: [0, 1],
      spans: [[0x1000, false, 10, 1]],
      target: [
        [2, 0],
        [3, 1],
      ],
      bytes: 10 * 4096,
    },
    {
      name: 'hugetlb pages: counted in their size',
      ranges: [range(0x40000000, { 1: 3 }, { pageBytes: 2 * 1048576 })],
      from: [1],
      to: [0],
      spans: [[0x40000000, false, 3, 0]],
      target: [[1, 0]],
      bytes: 6 * 1048576,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = planMove(c.ranges, c.from, c.to);
      assert.deepEqual(
        p.spans.map((s) => [s.start, s.query, s.sourcePages, s.to]),
        c.spans,
      );
      assert.deepEqual([...p.target], c.target);
      assert.equal(p.bytes, c.bytes);
    });
  }
});

describe('pacing', () => {
  const cases: {
    name: string;
    so: { bytes: number; elapsedMs: number; cpuMs: number };
    mbps: number;
    cpuShare: number;
    pause: number;
  }[] = [
    { name: 'no budget: no pause', so: { bytes: 1e9, elapsedMs: 10, cpuMs: 10 }, mbps: 0, cpuShare: 1, pause: 0 },
    {
      name: 'rate: 100 MB at 100 MB/s after 400 ms waits 600 ms',
      so: { bytes: 100e6, elapsedMs: 400, cpuMs: 400 },
      mbps: 100,
      cpuShare: 1,
      pause: 600,
    },
    {
      name: 'rate: ahead of the budget already: no pause',
      so: { bytes: 10e6, elapsedMs: 400, cpuMs: 400 },
      mbps: 100,
      cpuShare: 1,
      pause: 0,
    },
    {
      name: 'CPU: 200 ms of CPU at a 50% share after 200 ms waits 200 ms',
      so: { bytes: 1e6, elapsedMs: 200, cpuMs: 200 },
      mbps: 0,
      cpuShare: 0.5,
      pause: 200,
    },
    {
      name: 'the tighter of the two wins',
      so: { bytes: 100e6, elapsedMs: 100, cpuMs: 100 },
      mbps: 1000,
      cpuShare: 0.25,
      pause: 300,
    },
  ];
  for (const c of cases)
    it(`pauseMs: ${c.name}`, () => assert.equal(pauseMs(c.so, { mbps: c.mbps, cpuShare: c.cpuShare }), c.pause));

  const sizes: { name: string; last: { bytes: number; wallMs: number }; mbps: number; next: number }[] = [
    { name: 'aims at 50 ms at the last speed', last: { bytes: 4 * 1048576, wallMs: 200 }, mbps: 0, next: 1048576 },
    { name: 'grows at most 4x a step', last: { bytes: 1048576, wallMs: 1 }, mbps: 0, next: 4 * 1048576 },
    { name: 'never past the maximum', last: { bytes: 8 * 1048576, wallMs: 1 }, mbps: 0, next: MAX_BATCH_BYTES },
    {
      name: 'never under the minimum (a very slow copy)',
      last: { bytes: 1048576, wallMs: 5000 },
      mbps: 0,
      next: MIN_BATCH_BYTES,
    },
    { name: 'at most 50 ms of the rate budget', last: { bytes: 8 * 1048576, wallMs: 10 }, mbps: 20, next: 1e6 },
  ];
  for (const c of sizes)
    it(`nextBatchBytes: ${c.name}`, () => assert.equal(nextBatchBytes(c.last, { mbps: c.mbps, cpuShare: 1 }), c.next));
});

describe('anonymous ranges', () => {
  const maps = [
    '55aa00000000-55aa00021000 r-xp 00000000 fd:01 1234                       /usr/bin/node',
    '55aa01000000-55aa02000000 rw-p 00000000 00:00 0                          [heap]',
    '7f0000000000-7f0004000000 rw-p 00000000 00:00 0 ',
    '7f1000000000-7f1000400000 rw-p 00000000 00:0f 5555                       /anon_hugepage (deleted)',
    '7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]',
    'ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]',
  ].join('\n');
  const numaMaps = [
    '55aa00000000 default file=/usr/bin/node mapped=10 N0=10 kernelpagesize_kB=4',
    '55aa01000000 default heap anon=20 dirty=20 N1=20 kernelpagesize_kB=4',
    '7f0000000000 default anon=300 dirty=300 N0=100 N1=200 kernelpagesize_kB=4',
    '7f1000000000 default file=/anon_hugepage\\040(deleted) huge dirty=2 N1=2 kernelpagesize_kB=2048',
    '7f8000000000 default anon=5 dirty=5 N1=5 kernelpagesize_kB=4',
    '7ffd00000000 default stack anon=3 dirty=3 N1=3 kernelpagesize_kB=4',
    '7ffe00000000 default',
  ].join('\n');

  it('maps: start, end, perms, path and offset; the kernel-space [vsyscall] line left out', () => {
    const m = parseProcMaps(maps);
    assert.equal(m.length, 5);
    assert.deepEqual(m[2], { start: 0x7f0000000000, end: 0x7f0004000000, perms: 'rw-p', path: '', offset: 0 });
    assert.equal(m[1]!.path, '[heap]');
  });

  it('maps: a malformed line names itself', () => {
    assert.throws(() => parseProcMaps('7f00-zz rw-p 0 0 0'), /:1: not a maps line/);
  });

  it('numa_maps joined with maps: anonymous mappings (hugetlb included) with pages per node; file mappings, empty ones and those gone from maps left out', () => {
    const r = joinAnonRanges(numaMaps, parseProcMaps(maps));
    assert.deepEqual(
      r.map((x) => [x.start.toString(16), x.end - x.start, x.pageBytes, [...x.pages]]),
      [
        ['55aa01000000', 0x1000000, 4096, [[1, 20]]],
        [
          '7f0000000000',
          0x4000000,
          4096,
          [
            [0, 100],
            [1, 200],
          ],
        ],
        ['7f1000000000', 0x400000, 2097152, [[1, 2]]],
        ['7ffd00000000', 0x21000, 4096, [[1, 3]]],
      ],
    );
  });
});
