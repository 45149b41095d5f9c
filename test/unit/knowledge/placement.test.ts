// Where a workload's largest process is placed decides what AutoNUMA should be for the profiles
// that depend on it (database, jvm, general): bound (CPUs of one node, a cpuset limiting memory,
// or most memory under an explicit policy, as numactl, NUMAPolicy= and numakit run/plan set it)
// wants it off; unpinned wants it on. Table-tested, plus the numa_maps reader it comes from.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseMemPolicies, readPlacedProcesses } from '../../../src/discover/placement.js';
import type { PlacedProcess } from '../../../src/model/placement.js';
import { detectPlacement } from '../../../src/policy/knowledge/placement.js';
import { resolveWants } from '../../../src/policy/knowledge/resolve.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { GiB, node, topology } from '../doctor/build.js';

const t = topology(); // two nodes: CPUs 0-3 on node 0, 4-7 on node 1
const big = (over: Partial<PlacedProcess>): PlacedProcess => ({
  pid: 4242,
  comm: 'mysqld',
  totalBytes: 12 * GiB,
  cpusAllowed: [0, 1, 2, 3, 4, 5, 6, 7],
  memsAllowed: [0, 1],
  ...over,
});

const CASES: [string, PlacedProcess, 'bound' | 'unpinned', RegExp][] = [
  [
    'CPUs on every node, default policy',
    big({ memPolicy: { text: 'default', share: 1 } }),
    'unpinned',
    /may run on every node/,
  ],
  [
    'CPUs of node 0 only (numactl --cpunodebind, CPUAffinity=)',
    big({ cpusAllowed: [0, 1, 2, 3] }),
    'bound',
    /CPUs are on node 0 only/,
  ],
  ['a cpuset with node 1 memory only', big({ memsAllowed: [1] }), 'bound', /cpuset allows memory on node\(s\) 1 only/],
  [
    'numactl --membind=1 (numakit run, NUMAPolicy=bind)',
    big({ memPolicy: { text: 'bind:1', share: 0.97 } }),
    'bound',
    /memory policy is bind:1 for 97%/,
  ],
  [
    'interleaved (numactl --interleave=all)',
    big({ memPolicy: { text: 'interleave:0-1', share: 0.9 } }),
    'bound',
    /interleave:0-1/,
  ],
  [
    'preferred with static nodes',
    big({ memPolicy: { text: 'prefer=static:0', share: 0.8 } }),
    'bound',
    /prefer=static:0/,
  ],
  [
    'bind with NUMA balancing (MPOL_F_NUMA_BALANCING): AutoNUMA still works inside it',
    big({ memPolicy: { text: 'bind=balancing:0-1', share: 1 } }),
    'unpinned',
    /every node/,
  ],
  [
    'a bound minority: most memory under the default policy',
    big({ memPolicy: { text: 'bind:0', share: 0.3 } }),
    'unpinned',
    /every node/,
  ],
];

for (const [name, p, want, detail] of CASES) {
  test(`placement: ${name} -> ${want}`, () => {
    const got = detectPlacement(t, [p], '');
    assert.equal(got.value, want);
    assert.match(got.detail, detail);
    const autonuma = resolveWants('database', { nodes: 2, memoryOnlyNodes: 0, kernelRelease: '6.1.0' }, got).autonuma;
    assert.ok(autonuma?.state === 'want');
    assert.equal(autonuma.advice.value, want === 'bound' ? 'off' : 'on', 'bound: AutoNUMA off; unpinned: on');
  });
}

test('placement on one NUMA node: not needed, and AutoNUMA is moot for every profile whatever runs', () => {
  const one = topology({ nodes: [node(0, [0, 1, 2, 3])] });
  const got = detectPlacement(one, [big({ cpusAllowed: [0, 1], memPolicy: { text: 'bind:0', share: 1 } })], '');
  assert.deepEqual([got.value, got.detail], [null, 'not needed: one NUMA node, nothing to place']);
  for (const klass of ['general', 'database', 'jvm'] as const)
    assert.equal(
      resolveWants(klass, { nodes: 1, memoryOnlyNodes: 0, kernelRelease: '6.1.0' }, got).autonuma?.state,
      'moot',
      klass,
    );
});

test('parseMemPolicies: resident kB per policy as printed (flags kept, huge pages by their size)', () => {
  const kb = parseMemPolicies(
    [
      '7f0000000000 bind:1 anon=1000 dirty=1000 N1=1000 kernelpagesize_kB=4',
      '7f1000000000 bind=balancing:0-1 anon=10 N0=10 kernelpagesize_kB=4',
      '7f2000000000 default file=/usr/sbin/mysqld mapped=50 N0=50 kernelpagesize_kB=4',
      '7f3000000000 bind:1 file=/anon_hugepage\\040(deleted) huge dirty=2 N1=2 kernelpagesize_kB=2048',
      '7f4000000000 default anon=0 kernelpagesize_kB=4',
    ].join('\n'),
  );
  assert.deepEqual(
    [...kb],
    [
      ['bind:1', 4000 + 4096],
      ['bind=balancing:0-1', 40],
      ['default', 200],
    ],
  );
});

const scratch = mkdtempSync(join(tmpdir(), 'numakit-placement-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('readPlacedProcesses reads numa_maps of the largest process only, and a bind there is "bound"', () => {
  const proc = (pid: number, name: string, rssKb: number, maps: string | null) => {
    mkdirSync(join(scratch, `proc/${pid}`), { recursive: true });
    writeFileSync(
      join(scratch, `proc/${pid}/status`),
      `Name:\t${name}\nState:\tS (sleeping)\nVmRSS:\t${rssKb} kB\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0-1\n`,
    );
    if (maps !== null) writeFileSync(join(scratch, `proc/${pid}/numa_maps`), maps);
  };
  proc(100, 'java', 4 * 1024 * 1024, '7f0000000000 bind:1 anon=1048576 N1=1048576 kernelpagesize_kB=4\n');
  proc(200, 'small', 2 * 1024 * 1024, '7f0000000000 bind:0 anon=10 N0=10 kernelpagesize_kB=4\n');
  const placed = readPlacedProcesses(openRoot(scratch, 'scratch'));
  assert.ok(placed.ok);
  assert.deepEqual(
    placed.value.map((p) => [p.pid, p.memPolicy]),
    [
      [100, { text: 'bind:1', share: 1 }],
      [200, undefined],
    ],
  );
  assert.equal(detectPlacement(t, placed.value, '').value, 'bound');
});

test('a large process scales with a small machine: 140 MiB on a 1 GiB guest tells the placement, not on 32 GiB', () => {
  const small = topology({
    nodes: [node(0, [0, 1], 0.5, 0.2), node(1, [2, 3], 0.5, 0.2)],
    kernel: { ...t.kernel, memTotalBytes: { ...t.kernel.memTotalBytes, value: GiB } },
  });
  const app = big({ comm: 'remote-app', pid: 147, totalBytes: 140 * 2 ** 20, cpusAllowed: [0, 1] });
  const onSmall = detectPlacement(small, [app], '');
  assert.equal(onSmall.value, 'bound');
  assert.match(onSmall.detail, /remote-app \(pid 147, 140 MiB\)/);
  const onBig = detectPlacement(t, [app], '');
  assert.equal(onBig.value, null);
  assert.equal(onBig.detail, 'unknown: no process of 1 GiB or more runs to tell it from');
});

test('placement on a large machine looks each allowed CPU up once, not by a search of every CPU', () => {
  const per = 448; // 4 nodes x 448 CPUs: 1,792
  const nodes = [0, 1, 2, 3].map((n) =>
    node(
      n,
      Array.from({ length: per }, (_, i) => n * per + i),
    ),
  );
  const plain = topology({ nodes });
  let reads = 0;
  // Counts the reads of the CPU list's elements.
  const cpus = new Proxy(plain.cpus, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  const all = plain.cpus.map((c) => c.id);
  const info = detectPlacement({ ...plain, cpus }, [big({ cpusAllowed: all, memsAllowed: [0, 1, 2, 3] })], '');
  assert.equal(info.value, 'unpinned');
  assert.ok(reads <= 4 * all.length, `${reads} reads of the CPU list for ${all.length} CPUs`);
});
