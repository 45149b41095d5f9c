// Decisions of the non-standalone planners, table-style, on the example machines.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { machineShare } from '../../../src/policy/plan/machine.js';
import { openRoot } from '../../../src/sysfs/root.js';
import type { DbDecision } from '../../../src/policy/plan/db.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import type { JvmDecision } from '../../../src/policy/plan/jvm.js';
import type { RedisDecision } from '../../../src/policy/plan/redis.js';
import type { ServiceDecision } from '../../../src/policy/plan/service.js';
import type { SparkK8sDecision } from '../../../src/policy/plan/spark_k8s.js';
import type { SparkYarnDecision } from '../../../src/policy/plan/spark_yarn.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { exampleMachine } from './machines.js';

const plan = <T>(machine: string, workload: string, raw: Record<string, string | boolean>) =>
  planWorkload(workload, exampleMachine(machine), raw) as T;
const content = async (d: Parameters<typeof renderPlan>[0], suffix: string) =>
  (await renderPlan(d)).find((f) => f.path.endsWith(suffix))?.content ?? '';

test('mysql: policy from buffer pool against node memory', async () => {
  const cases: [string, string, string, string][] = [
    ['spark-2s', '48g', 'bind', '0'], // 48/96 = 0.5
    ['spark-2s', '72g', 'preferred', '0'], // 0.75
    ['spark-2s', '90g', 'interleave', '0,1'], // 0.94
    ['cxl-3node', '100g', 'interleave', '0,1'], // memory-only node 2 left out
  ];
  for (const [m, pool, policy, mask] of cases) {
    const d = plan<DbDecision>(m, 'mysql', { 'buffer-pool': pool });
    assert.deepEqual([d.policy, d.mask], [policy, mask], `${m} ${pool}`);
  }
  const bound = plan<DbDecision>('spark-2s', 'mysql', { 'buffer-pool': '48g' });
  assert.match(await content(bound, '50-numakit-numa.conf'), /^NUMAPolicy=bind\nNUMAMask=0\nCPUAffinity=0-15,32-47$/m);
  assert.match(
    await content(plan<DbDecision>('spark-2s', 'mysql', { 'buffer-pool': '90g' }), 'numakit-numa.cnf'),
    /^innodb_numa_interleave = ON$/m,
  );
});

test('mysql on systemd < 243 puts numactl in ExecStart; postgres then needs --exec', async () => {
  const d = plan<DbDecision>('spark-2s', 'mysql', { 'buffer-pool': '72g', 'systemd-version': '239' });
  assert.match(
    await content(d, '50-numakit-numa.conf'),
    /^ExecStart=\nExecStart=\/usr\/bin\/numactl --preferred=0 \/usr\/sbin\/mysqld$/m,
  );
  assert.throws(() => plan('spark-2s', 'postgres', { 'buffer-pool': '8g', 'systemd-version': '239' }), /needs --exec/);
});

test("mysql: the server (pool + 10%, at least 1 GiB) is bound only within the node's budget; preferred spills the rest", () => {
  const bound = plan<DbDecision>('spark-2s', 'mysql', { 'buffer-pool': '48g' });
  assert.deepEqual(
    bound.memory.nodes.map((n) => [n.committedGiB, n.policy]),
    [
      [52.8, 'bind'],
      [0, 'none'],
    ],
  );
  const spill = plan<DbDecision>('spark-2s', 'mysql', { 'buffer-pool': '80g' });
  assert.deepEqual(
    spill.memory.nodes.map((n) => [Number(n.committedGiB.toFixed(2)), n.policy]),
    [
      [86.4, 'preferred'],
      [1.6, 'preferred'],
    ],
  );
});

test('databases refuse a pool larger than the machine and a missing size', () => {
  assert.throws(
    () => plan('spark-2s', 'mysql', { 'buffer-pool': '500g' }),
    /--buffer-pool 500 GiB \+ 50 GiB server = 550 GiB does not fit this machine: its CPU nodes can take 172\.8 GiB after each keeps its reserve/,
  );
  assert.throws(() => plan('spark-2s', 'postgres', {}), /--buffer-pool SIZE is required/);
  assert.throws(() => plan('spark-2s', 'mysql', { 'buffer-pool': '8g', node: '2' }), /--node 2: not a node/);
  assert.throws(
    () => plan('spark-2s', 'mysql', { 'buffer-pool': '8g', exec: '/usr/sbin/mysqld; reboot' }),
    /argument 'reboot'|refused/,
  );
});

test('redis: one per node by default, per core with --per-core, never more instances than nodes', async () => {
  const d = plan<RedisDecision>('spark-2s', 'redis', {});
  assert.deepEqual(
    d.instances.map((i) => [i.port, i.node, i.cpuList]),
    [
      [6379, 0, '0-15,32-47'],
      [6380, 1, '16-31,48-63'],
    ],
  );
  // (86.4 GiB budget / 2 for a BGSAVE fork - 64 MiB) / 1.1 fragmentation
  assert.equal(d.instances[0]!.maxmemoryMb, Math.floor(((86.4 * 1024) / 2 - 64) / 1.1));
  const pc = plan<RedisDecision>('spark-2s', 'redis', { 'per-core': true });
  assert.equal(pc.instances.length, 32);
  assert.equal(pc.instances[0]!.cpuList, '0,32');
  assert.match(
    await content(pc, 'redis-numa@6379.service.d/50-numakit-numa.conf'),
    /taskset -c 0,32 \/usr\/bin\/numactl --membind=0 /,
  );
  assert.throws(() => plan('spark-2s', 'redis', { instances: '3' }), /more instances than NUMA nodes/);
});

test('redis --per-l3: one instance per L3 group of each node (EPYC CCX), pinned to its CPUs', async () => {
  const cases: [machine: string, instances: [port: number, node: number, cpus: string][]][] = [
    // Zen 2 NPS4: two 4-core CCX per node
    [
      'epyc-nps4',
      [
        [6379, 0, '0-3,32-35'],
        [6380, 0, '4-7,36-39'],
        [6381, 1, '8-11,40-43'],
        [6382, 1, '12-15,44-47'],
        [6383, 2, '16-19,48-51'],
        [6384, 2, '20-23,52-55'],
        [6385, 3, '24-27,56-59'],
        [6386, 3, '28-31,60-63'],
      ],
    ],
    // one L3 per socket: one instance per node, as without the option
    [
      'spark-2s',
      [
        [6379, 0, '0-15,32-47'],
        [6380, 1, '16-31,48-63'],
      ],
    ],
  ];
  for (const [m, want] of cases) {
    const d = plan<RedisDecision>(m, 'redis', { 'per-l3': true });
    assert.deepEqual(
      d.instances.map((i) => [i.port, i.node, i.cpuList]),
      want,
      m,
    );
  }
  const epyc = plan<RedisDecision>('epyc-nps4', 'redis', { 'per-l3': true });
  assert.match(
    await content(epyc, 'redis-numa@6380.service.d/50-numakit-numa.conf'),
    /taskset -c 4-7,36-39 \/usr\/bin\/numactl --membind=0 /,
  );
  assert.match(await content(epyc, 'PLAN.md'), /8 Redis instances, one per L3 cache/);
  assert.match(await content(epyc, 'PLAN.md'), /one per L3 cache: 0-3,32-35 \\\| 4-7,36-39/);
  assert.throws(
    () => plan('spark-2s', 'redis', { 'per-l3': true, 'per-core': true }),
    /--per-core and --per-l3 cannot be used together/,
  );
});

test('jvm: per node when the heap fits, interleaved when it does not, refusals', async () => {
  const fit = plan<JvmDecision>('spark-2s', 'jvm', { heap: '48g', jar: '/opt/a.jar' });
  assert.deepEqual([fit.mode, fit.instances.length], ['per-node', 2]);
  const big = plan<JvmDecision>('spark-2s', 'jvm', { heap: '90g', jar: '/opt/a.jar' });
  assert.deepEqual([big.mode, big.instances.length, big.mask], ['interleave', 1, '0,1']);
  assert.match(await content(big, 'app.service'), /^NUMAPolicy=interleave\nNUMAMask=0,1$/m);
  assert.match(
    await content(big, 'app.service'),
    /-Xms90g -Xmx90g -XX:\+UseNUMA -XX:\+AlwaysPreTouch -jar \/opt\/a.jar/,
  );
  assert.throws(
    () => plan('spark-2s', 'jvm', { heap: '400g', jar: '/opt/a.jar' }),
    /--heap 400 GiB \+ 40 GiB native = 440 GiB does not fit this machine: interleaved it puts 220 GiB on each of 2 node\(s\), and node 0: MemTotal 96 GiB - reserve 9\.6 GiB = 86\.4 GiB/,
  );
  assert.throws(
    () => plan('spark-2s', 'jvm', { heap: '8g', jar: '/opt/a.jar', instances: '3' }),
    /more instances than NUMA nodes/,
  );
  assert.throws(
    () => plan('spark-2s', 'jvm', { heap: '90g', jar: '/opt/a.jar', instances: '2' }),
    /one interleaved instance/,
  );
  const es = plan<JvmDecision>('epyc-nps4', 'elasticsearch', { heap: '31g' });
  assert.equal(es.mode, 'interleave');
  assert.ok((await content(es, 'jvm.options.d/numakit.options')).includes('-Xmx31g'));
});

test('service: template plus one drop-in per node; bad names and commands refused', async () => {
  const d = plan<ServiceDecision>('epyc-nps4', 'service', {
    name: 'ingest',
    exec: '/usr/bin/ingest -v',
    'per-node': true,
  });
  assert.equal(d.instances.length, 4);
  assert.match(await content(d, 'ingest@3.service.d/50-numakit-numa.conf'), /NUMAMask=3\nCPUAffinity=24-31,56-63/);
  const old = plan<ServiceDecision>('spark-2s', 'service', { name: 'x', exec: '/usr/bin/x', 'systemd-version': '240' });
  assert.match(
    await content(old, 'x@.service'),
    /^ExecStart=\/usr\/bin\/numactl --cpunodebind=%i --membind=%i \/usr\/bin\/x$/m,
  );
  assert.throws(() => plan('spark-2s', 'service', { name: 'a b', exec: '/usr/bin/x' }), /--name: 'a b' refused/);
  assert.throws(() => plan('spark-2s', 'service', { name: 'x', exec: 'x --y' }), /--exec \(program\)/);
  assert.throws(() => plan('spark-2s', 'service', { name: 'x', exec: '/usr/bin/x $(id)' }), /refused/);
  assert.throws(() => plan('spark-2s', 'service', { name: 'x', exec: '/usr/bin/x %n' }), /refused/);
});

test('spark-yarn: one executor container per node from the seed 000 sizing', async () => {
  const d = plan<SparkYarnDecision>('spark-2s', 'spark-yarn', {});
  // 72g + 11g per container: with the NodeManager and DataNode heaps (1g each) and room for the
  // ApplicationMaster's 1024 MB container, 86 <= 96 - 9.6 GiB on each node.
  assert.deepEqual([d.containerMb, d.totalMb, d.totalVcores, d.instances], [83 * 1024, 2 * 83 * 1024 + 1024, 27, 2]);
  const xml = await content(d, 'yarn-site.numakit.xml');
  assert.match(xml, /<name>yarn.nodemanager.numa-awareness.1.memory<\/name>\n\s*<value>86016<\/value>/);
  assert.match(xml, /<name>yarn.nodemanager.resource.memory-mb<\/name>\n\s*<value>171008<\/value>/);
  assert.match(xml, /<name>yarn.nodemanager.numa-awareness.node-ids<\/name>\n\s*<value>0,1<\/value>/);
});

test('spark-yarn on one NUMA node (vm-flat-32): NUMA awareness and the LinuxContainerExecutor left off, only the sizes', async () => {
  const d = plan<SparkYarnDecision>('vm-flat-32', 'spark-yarn', {});
  assert.equal(d.numaAware, false);
  const xml = await content(d, 'yarn-site.numakit.xml');
  assert.match(xml, /<name>yarn.nodemanager.resource.memory-mb<\/name>\n\s*<value>115712<\/value>/);
  assert.doesNotMatch(xml, /numa-awareness|LinuxContainerExecutor/);
  assert.equal(await content(d, 'container-executor.cfg'), '');
  const md = await content(d, 'PLAN.md');
  assert.match(md, /one NUMA node: .* NUMA awareness is left off/);
  assert.doesNotMatch(md, /NUMA resources allocation is enabled|numastat/);
  assert.deepEqual(
    d.memory.nodes.map((n) => n.policy),
    ['none'],
  );
});

test('spark-k8s: whole cores, pods that fit one node, reserved memory adding up', async () => {
  const d = plan<SparkK8sDecision>('spark-2s', 'spark-k8s', { 'k8s-node': 'w1' });
  // reservedMemory = each node's reserve (9.6 GiB -> 9831Mi); a pod fits MemTotal - reservedMemory: 74g + 12g = 86Gi.
  assert.deepEqual([d.podCpus, d.podMemoryGi, d.reservedCpus], [26, 86, '0,16,32,48']);
  assert.deepEqual(d.reservedMemory, [
    { node: 0, mi: 9831 },
    { node: 1, mi: 9831 },
  ]);
  assert.equal(d.systemReservedMi, 2 * 9831 - 100);
  assert.equal(d.volumes.length, 2);
  assert.equal(plan<SparkK8sDecision>('cxl-3node', 'spark-k8s', { 'k8s-node': 'w1' }).volumes.length, 0);
  assert.throws(() => plan('spark-2s', 'spark-k8s', {}), /--k8s-node NAME is required/);
  // 32 GiB nodes: 28.8Gi after the 3.2 GiB reserve: 24g + 4g.
  const small = plan<SparkK8sDecision>('epyc-nps4', 'spark-k8s', { 'k8s-node': 'w1' });
  assert.deepEqual([small.sizing.memoryGiB, small.sizing.overheadGiB, small.podMemoryGi], [24, 4, 28]);
  assert.match(await content(small, 'spark-defaults.conf'), /^spark\.executor\.memory\s+24g$/m);
  assert.throws(
    () => plan('spark-2s', 'spark-k8s', { 'k8s-node': 'w1', 'cores-fraction': '1' }),
    /do not fit the 30 CPUs/,
  );
});

test('one NUMA node (vm-flat-32): every bound plan says binding keeps nothing more local; two-node plans do not', () => {
  const cases: [string, Record<string, string | boolean>][] = [
    ['mysql', { 'buffer-pool': '48g' }],
    ['postgres', { 'buffer-pool': '24g' }],
    ['redis', {}],
    ['jvm', { heap: '24g', jar: '/opt/a.jar' }],
    ['elasticsearch', { heap: '31g' }],
    ['service', { name: 'ingest', exec: '/usr/local/bin/ingest', 'per-node': true }],
  ];
  for (const [workload, raw] of cases) {
    const one = plan<{ notes: string[] }>('vm-flat-32', workload, raw);
    assert.equal(
      one.notes.filter((n) => /^This machine has one NUMA node: .*no remote memory to avoid/.test(n)).length,
      1,
      `${workload}: ${one.notes.join('\n')}`,
    );
    assert.ok(
      !plan<{ notes: string[] }>('spark-2s', workload, raw).notes.some((n) => /one NUMA node/.test(n)),
      workload,
    );
  }
});

test('redis --per-l3 on a machine whose sysfs has no caches: a one-line refusal naming the node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-nol3-'));
  try {
    cpSync(join(EXAMPLES_DIR, 'lab-2node'), dir, { recursive: true });
    for (const cpu of [0, 1, 2, 3]) rmSync(join(dir, `sys/devices/system/cpu/cpu${cpu}/cache`), { recursive: true });
    const m = machineShare({
      topology: discoverTopology(openRoot(dir)),
      label: 'no-caches',
      os: null,
      cgroup: { mems: null },
    });
    assert.throws(
      () => planWorkload('redis', m, { 'per-l3': true }),
      /redis --per-l3: node 0's CPUs have no known L3 cache/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('JVM units (jvm, elasticsearch, spark workers) take the JVM exit on SIGTERM (143) as a clean stop', async () => {
  for (const [w, raw, suffix] of [
    ['jvm', { heap: '24g', jar: '/opt/app/app.jar' }, 'app-node0.service'],
    ['elasticsearch', { heap: '31g' }, '.service'],
    ['spark-standalone', {}, 'spark-worker-node0.service'],
  ] as const) {
    const d = plan<Parameters<typeof renderPlan>[0]>('spark-2s', w, raw);
    assert.match(await content(d, suffix), /^SuccessExitStatus=143$/m, w);
  }
});
