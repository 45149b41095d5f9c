// Table tests of every doctor rule: a case where it fires and one where it does not, built from
// the healthy baseline in build.ts by changing one thing. Cases every rule must pass are below.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { DoctorInput } from '../../../src/model/doctor_input.js';
import { absent, present } from '../../../src/model/fact.js';
import { isProblem, type Finding, type Severity } from '../../../src/model/finding.js';
import { doctorProfile, type Profile } from '../../../src/policy/doctor/profiles.js';
import { autonumaScan } from '../../../src/policy/doctor/autonuma_scan.js';
import { RULES, ruleById } from '../../../src/policy/doctor/rules.js';
import { CLASSES, type Placement, type WorkloadClass } from '../../../src/policy/knowledge/types.js';
import { GiB, device, input, irq, kernel, no, node, ok, proc, topology, withDistances } from './build.js';

interface Case {
  name: string;
  rule: string;
  profile?: WorkloadClass;
  placement?: Placement;
  input: DoctorInput;
  /** finding id -> severity expected; ids not listed must not be problems. */
  expect: Record<string, Severity>;
}

const profileFor = (klass: WorkloadClass, i: DoctorInput, placement?: Placement): Profile =>
  doctorProfile({ klass, alias: null }, i, placement);
const k = (over: Parameters<typeof kernel>[0]) => input({ topology: topology({ kernel: kernel(over) }) });
const sockets2node1 = topology({
  nodes: [node(0, [0, 1, 2, 3, 4, 5, 6, 7], 32)],
  cpus: topology().cpus.map((c) => ({ ...c, node: 0 })),
});
const bigVm = topology({
  nodes: [
    node(
      0,
      Array.from({ length: 32 }, (_, i) => i),
      128,
    ),
  ],
  cpus: Array.from({ length: 32 }, (_, i) => ({
    id: i,
    node: 0,
    online: true,
    package: 0,
    die: 0,
    cluster: null,
    core: i,
    siblings: [i],
    l3: [],
    allowed: true,
  })),
  kernel: kernel({ hypervisor: present('proc/cpuinfo', true), memTotalBytes: present('proc/meminfo', 128 * GiB) }),
});
const scan = (min: number, size: number) => ({
  numaBalancing: present('proc/sys/kernel/numa_balancing', 1),
  numaBalancingScan: {
    ...kernel().numaBalancingScan,
    periodMinMs: present('proc/sys/kernel/numa_balancing_scan_period_min_ms', min),
    sizeMb: present('proc/sys/kernel/numa_balancing_scan_size_mb', size),
  },
});
const pinnedDb = proc(
  4242,
  'mysqld',
  { 0: 2 * GiB, 1: 10 * GiB },
  [0, 1, 2, 3],
  { 0: 100 },
  '/system.slice/mysqld.service',
);
const remoteJava = proc(5151, 'java', { 0: 1 * GiB, 1: 7 * GiB }, [0, 1, 2, 3, 4, 5, 6, 7], { 0: 50 });
const autonumaOn = topology({ kernel: kernel({ numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }) });
const defragNever = topology({
  kernel: kernel({ thpDefrag: present('sys/kernel/mm/transparent_hugepage/defrag', 'never') }),
});
const withMemOnly = withDistances(
  [node(0, [0, 1, 2, 3]), node(1, [4, 5, 6, 7]), node(2, [], 64, 64)],
  [
    [10, 21, 14],
    [21, 10, 24],
    [14, 24, 10],
  ],
);

// Linux 6.12's tiers as the lab measured them: without HMAT the memory-only node joins DRAM's
// memory_tier4; with HMAT it lands in memory_tier18.
const HMAT2 = {
  initiators: [0],
  readLatencyNs: 30,
  writeLatencyNs: 30,
  readBandwidthMBps: 6667,
  writeBandwidthMBps: 6250,
};
const tiered = (tier2: number, access = tier2 !== 4) =>
  withMemOnly.map((n) => ({ ...n, memoryTier: n.id === 2 ? tier2 : 4, access: n.id === 2 && access ? HMAT2 : null }));
const k612 = (over: Parameters<typeof kernel>[0] = {}) =>
  kernel({
    kernelRelease: present('proc/sys/kernel/osrelease', '6.12.117+deb13-amd64'),
    numaBalancing: present('proc/sys/kernel/numa_balancing', 2),
    promoteRateLimitMBps: present('proc/sys/kernel/numa_balancing_promote_rate_limit_MBps', 600),
    ...over,
  });
const tierInput = (tier2: number, over: Parameters<typeof kernel>[0] = {}, demotionOn = true, access?: boolean) =>
  input({
    topology: topology({ nodes: tiered(tier2, access), kernel: k612(over) }),
    demotion: present('sys/kernel/mm/numa/demotion_enabled', demotionOn),
  });

// One socket split in two nodes sharing its L3 (SNC2).
const snc2 = topology({
  cpus: topology().cpus.map((c) => ({ ...c, package: 0, l3: [0, 1, 2, 3, 4, 5, 6, 7] })),
});

const CASES: Case[] = [
  {
    name: 'SNC2: two nodes share a socket and its L3',
    rule: 'node-layout',
    input: input({ topology: snc2 }),
    expect: { 'node-layout': 'info' },
  },
  { name: 'one node per socket', rule: 'node-layout', input: input(), expect: {} },
  {
    name: '2 sockets, 1 node',
    rule: 'numa-off',
    input: input({ topology: sockets2node1 }),
    expect: { 'numa-off/sockets': 'critical' },
  },
  {
    name: 'numa=off on cmdline',
    rule: 'numa-off',
    input: k({ cmdline: present('proc/cmdline', 'ro numa=off') }),
    expect: { 'numa-off/cmdline': 'critical' },
  },
  {
    name: 'numa_balancing=disable, unpinned database',
    rule: 'numa-off',
    profile: 'database',
    placement: 'unpinned',
    input: k({
      cmdline: present('proc/cmdline', 'ro numa_balancing=disable'),
      numaBalancing: present('proc/sys/kernel/numa_balancing', 1),
    }),
    expect: { 'numa-off/balancing-cmdline': 'warning', 'autonuma-scan/aggressive': 'warning' },
  },
  {
    name: 'numa_balancing=disable is what spark wants',
    rule: 'numa-off',
    profile: 'spark',
    input: k({ cmdline: present('proc/cmdline', 'ro numa_balancing=disable') }),
    expect: {},
  },
  { name: '2 sockets, 2 nodes', rule: 'numa-off', input: input(), expect: {} },
  { name: 'big VM, one node', rule: 'vm-vnuma', input: input({ topology: bigVm }), expect: { 'vm-vnuma': 'warning' } },
  {
    name: 'VM with vNUMA',
    rule: 'vm-vnuma',
    input: input({ topology: topology({ kernel: kernel({ hypervisor: present('proc/cpuinfo', true) }) }) }),
    expect: {},
  },
  {
    name: 'AutoNUMA on, spark',
    rule: 'numa-balancing',
    profile: 'spark',
    input: k({ numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }),
    expect: { 'numa-balancing': 'warning' },
  },
  {
    name: 'AutoNUMA off, unpinned database',
    rule: 'numa-balancing',
    profile: 'database',
    placement: 'unpinned',
    input: input(),
    expect: { 'numa-balancing': 'warning' },
  },
  {
    name: 'AutoNUMA off, bound database',
    rule: 'numa-balancing',
    profile: 'database',
    placement: 'bound',
    input: input(),
    expect: {},
  },
  {
    name: 'AutoNUMA on, database detected bound (mysqld pinned)',
    rule: 'numa-balancing',
    profile: 'database',
    input: input({
      topology: topology({ kernel: kernel({ numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }) }),
      processes: ok([pinnedDb]),
    }),
    expect: {
      'numa-balancing': 'warning',
      'pinned-remote/4242': 'warning',
      'low-locality': 'warning',
      'autonuma-scan/aggressive': 'pass',
    },
  },
  {
    name: 'AutoNUMA on with a pinned process, general',
    rule: 'numa-balancing',
    input: input({
      topology: topology({ kernel: kernel({ numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }) }),
      processes: ok([pinnedDb]),
    }),
    expect: { 'numa-balancing': 'warning', 'pinned-remote/4242': 'warning', 'low-locality': 'warning' },
  },
  {
    name: 'AutoNUMA on, database, placement unknown: not judged',
    rule: 'numa-balancing',
    profile: 'database',
    input: k(scan(60000, 256)),
    expect: { 'numa-balancing': 'not-checked' },
  },
  { name: 'AutoNUMA off, spark', rule: 'numa-balancing', profile: 'spark', input: input(), expect: {} },
  {
    name: 'scan period 100 ms',
    rule: 'autonuma-scan',
    input: k(scan(100, 256)),
    expect: { 'autonuma-scan/aggressive': 'warning' },
  },
  {
    name: 'scan period 20 min',
    rule: 'autonuma-scan',
    input: k(scan(1_200_000, 256)),
    expect: { 'autonuma-scan/lazy': 'info' },
  },
  { name: 'scan defaults, general', rule: 'autonuma-scan', input: k(scan(1000, 256)), expect: {} },
  {
    name: 'scan as report 002, database',
    rule: 'autonuma-scan',
    profile: 'database',
    input: k(scan(60000, 256)),
    expect: {},
  },
  {
    name: 'THP always, spark',
    rule: 'thp',
    profile: 'spark',
    input: k({ thpEnabled: present('sys/kernel/mm/transparent_hugepage/enabled', 'always') }),
    expect: { 'thp/enabled': 'warning' },
  },
  {
    name: 'THP defrag always',
    rule: 'thp',
    profile: 'jvm',
    input: k({ thpDefrag: present('sys/kernel/mm/transparent_hugepage/defrag', 'always') }),
    expect: { 'thp/defrag': 'warning' },
  },
  {
    name: 'THP defrag madvise, latency',
    rule: 'thp',
    profile: 'latency',
    input: input({ rxQueues: {} }),
    expect: { 'thp/defrag': 'warning' },
  },
  {
    name: 'THP always, general',
    rule: 'thp',
    input: k({ thpEnabled: present('sys/kernel/mm/transparent_hugepage/enabled', 'always') }),
    expect: {},
  },
  {
    name: 'zone_reclaim_mode 1',
    rule: 'zone-reclaim',
    input: k({ zoneReclaimMode: present('proc/sys/vm/zone_reclaim_mode', 1) }),
    expect: { 'zone-reclaim': 'warning' },
  },
  { name: 'zone_reclaim_mode 0', rule: 'zone-reclaim', input: input(), expect: {} },
  {
    name: 'swappiness 60, database',
    rule: 'swap',
    profile: 'database',
    input: k({
      swappiness: present('proc/sys/vm/swappiness', 60),
      numaBalancing: present('proc/sys/kernel/numa_balancing', 1),
      numaBalancingScan: scan(60000, 256).numaBalancingScan,
    }),
    expect: { 'swap/swappiness': 'warning' },
  },
  {
    name: 'swap used, node 0 full, node 1 free',
    rule: 'swap',
    input: input({
      topology: topology({
        nodes: withDistances(
          [node(0, [0, 1, 2, 3], 16, 0.5), node(1, [4, 5, 6, 7], 16, 12)],
          [
            [10, 21],
            [21, 10],
          ],
        ),
      }),
      swap: present('proc/meminfo', { totalBytes: 4 * GiB, usedBytes: GiB }),
    }),
    expect: { 'swap/node-pressure': 'warning', 'memory-imbalance': 'warning' },
  },
  {
    name: 'swap used, nodes alike',
    rule: 'swap',
    input: input({ swap: present('proc/meminfo', { totalBytes: 4 * GiB, usedBytes: GiB }) }),
    expect: {},
  },
  {
    name: 'KSM merging across nodes, database',
    rule: 'ksm',
    profile: 'database',
    placement: 'bound',
    input: input({
      ksm: { ...input().ksm, run: present('sys/kernel/mm/ksm/run', 1) },
      comms: ok({ ksmtuned: [900], irqbalance: [700], tuned: [600] }),
    }),
    expect: { ksm: 'warning' },
  },
  {
    name: 'KSM merging across nodes, general',
    rule: 'ksm',
    input: input({
      ksm: { ...input().ksm, run: present('sys/kernel/mm/ksm/run', 1) },
      comms: ok({ ksmtuned: [900], irqbalance: [700] }),
    }),
    expect: { ksm: 'info' },
  },
  { name: 'KSM stopped', rule: 'ksm', input: input(), expect: {} },
  {
    name: 'irqbalance running over IRQs, spark pins them',
    rule: 'irqbalance',
    profile: 'spark',
    input: input({
      irqbalanceConfig: null,
      tunedProfile: present('etc/tuned/active_profile', ['latency-performance']),
      rxQueues: {},
    }),
    expect: { 'irqbalance/undoes-pinning': 'warning' },
  },
  {
    name: 'irqbalance running over hand-set IRQs, general (it keeps them on their node)',
    rule: 'irqbalance',
    input: input({ irqbalanceConfig: null }),
    expect: {},
  },
  {
    name: 'no irqbalance, nothing set',
    rule: 'irqbalance',
    input: input({
      comms: ok({ sshd: [1] }),
      irqs: ok({
        40: irq(40, [0, 1, 2, 3, 4, 5, 6, 7]),
        41: irq(41, [0, 1, 2, 3, 4, 5, 6, 7]),
        50: irq(50, [0, 1, 2, 3, 4, 5, 6, 7]),
        51: irq(51, [0, 1, 2, 3, 4, 5, 6, 7]),
      }),
    }),
    // eth0's default mask (all CPUs) lets its IRQs leave node 0: irq-locality says so too.
    expect: { 'irqbalance/nothing-set': 'warning', 'irq-locality/eth0': 'info' },
  },
  { name: 'irqbalance running, device IRQs banned', rule: 'irqbalance', input: input(), expect: {} },
  {
    name: 'NIC IRQ served on the other node',
    rule: 'irq-locality',
    input: input({
      irqs: ok({
        ...(input().irqs as { value: Record<number, ReturnType<typeof irq>> }).value,
        41: irq(41, [4, 5, 6, 7], { 5: 100 }),
      }),
      irqbalanceConfig: { path: 'etc/default/irqbalance', bannedIrqs: [40, 41], bannedCpus: [] },
    }),
    expect: { 'irq-locality/eth0': 'warning' },
  },
  {
    name: 'NVMe completions mostly remote',
    rule: 'irq-locality',
    input: input({
      irqs: ok({
        ...(input().irqs as { value: Record<number, ReturnType<typeof irq>> }).value,
        50: irq(50, [0, 1], { 0: 900 }),
        51: irq(51, [6, 7], { 6: 100 }),
      }),
    }),
    expect: { 'irq-locality/nvme0': 'info' },
  },
  { name: 'IRQs local', rule: 'irq-locality', input: input(), expect: {} },
  {
    name: 'NIC IRQ mask wider than its node, served on it today (apply re-pins it: one rule)',
    rule: 'irq-locality',
    input: input({
      irqs: ok({
        ...(input().irqs as { value: Record<number, ReturnType<typeof irq>> }).value,
        41: irq(41, [0, 1, 2, 3, 4, 5, 6, 7], { 1: 100 }, [1]),
      }),
    }),
    expect: { 'irq-locality/eth0': 'info' },
  },
  {
    name: 'RPS off on a busy NIC, database',
    rule: 'io-queues',
    profile: 'database',
    input: input({
      topology: topology({
        kernel: kernel({
          numaBalancing: present('proc/sys/kernel/numa_balancing', 1),
          numaBalancingScan: scan(60000, 256).numaBalancingScan,
        }),
      }),
      rxQueues: {
        eth0: [
          { queue: 'rx-0', rpsCpus: [], flowCnt: 0 },
          { queue: 'rx-1', rpsCpus: [], flowCnt: 0 },
        ],
      },
    }),
    expect: { 'io-queues/rps/eth0': 'warning' },
  },
  {
    name: 'rq_affinity 1, throughput',
    rule: 'io-queues',
    profile: 'throughput',
    input: input({
      topology: autonumaOn,
      rqAffinity: [
        { disk: 'nvme0n1', controller: 'nvme0', value: present('sys/class/block/nvme0n1/queue/rq_affinity', 1) },
      ],
      rxQueues: { eth0: [{ queue: 'rx-0', rpsCpus: [0, 1, 2, 3], flowCnt: 4096 }] },
    }),
    expect: { 'io-queues/rq_affinity/nvme0n1': 'warning' },
  },
  {
    name: 'RPS set, rq_affinity 2, throughput',
    rule: 'io-queues',
    profile: 'throughput',
    input: input({
      topology: autonumaOn,
      rxQueues: { eth0: [{ queue: 'rx-0', rpsCpus: [0, 1, 2, 3], flowCnt: 4096 }] },
    }),
    expect: {},
  },
  {
    name: 'NIC with numa_node -1',
    rule: 'device-node',
    input: input({ topology: topology({ devices: [device('net', 'eth9', null, [60])] }) }),
    expect: { 'device-node': 'warning' },
  },
  { name: 'devices all placed', rule: 'device-node', input: input(), expect: {} },
  {
    name: 'node 0 95% used, node 1 25%',
    rule: 'memory-imbalance',
    input: input({
      topology: topology({
        nodes: withDistances(
          [node(0, [0, 1, 2, 3], 16, 0.8), node(1, [4, 5, 6, 7], 16, 12)],
          [
            [10, 21],
            [21, 10],
          ],
        ),
      }),
    }),
    expect: { 'memory-imbalance': 'warning' },
  },
  { name: 'nodes half used', rule: 'memory-imbalance', input: input(), expect: {} },
  {
    name: '20% other_node',
    rule: 'numa-miss',
    input: input({
      numastat: ok({
        0: { numa_hit: 100, numa_miss: 0, numa_foreign: 0, interleave_hit: 0, local_node: 80, other_node: 20 },
        1: { numa_hit: 100, numa_miss: 0, numa_foreign: 0, interleave_hit: 0, local_node: 80, other_node: 20 },
      }),
    }),
    expect: { 'numa-miss': 'warning' },
  },
  { name: '1% other_node', rule: 'numa-miss', input: input(), expect: {} },
  {
    name: 'java 87% remote',
    rule: 'low-locality',
    input: input({ processes: ok([remoteJava]) }),
    expect: { 'low-locality': 'warning' },
  },
  {
    name: 'java local',
    rule: 'low-locality',
    input: input({ processes: ok([proc(5151, 'java', { 0: 7 * GiB, 1: GiB }, [0, 1, 2, 3, 4, 5, 6, 7], { 0: 50 })]) }),
    expect: {},
  },
  {
    name: 'mysqld pinned to node 0, memory on node 1',
    rule: 'pinned-remote',
    input: input({ processes: ok([pinnedDb]) }),
    expect: { 'pinned-remote/4242': 'warning', 'low-locality': 'warning' },
  },
  {
    name: 'mysqld pinned with its memory',
    rule: 'pinned-remote',
    input: input({ processes: ok([proc(4242, 'mysqld', { 0: 10 * GiB }, [0, 1, 2, 3], { 0: 100 })]) }),
    expect: {},
  },
  {
    name: 'CXL memory-only node',
    rule: 'memory-only-nodes',
    input: input({ topology: topology({ nodes: withMemOnly }) }),
    expect: { 'memory-only-nodes/node2': 'info', demotion: 'info' },
  },
  {
    name: 'CXL node, memory-tiering, demotion off',
    rule: 'demotion',
    profile: 'memory-tiering',
    input: input({
      topology: topology({
        nodes: withMemOnly,
        kernel: kernel({ numaBalancing: present('proc/sys/kernel/numa_balancing', 2) }),
      }),
    }),
    expect: { demotion: 'warning', 'memory-tiers': 'not-checked' },
  },
  { name: 'no slower tier: nothing to demote to', rule: 'demotion', input: input(), expect: {} },
  {
    name: '6.12, memory-only node in tier 18 (HMAT), demotion on',
    rule: 'demotion',
    profile: 'memory-tiering',
    input: tierInput(18),
    expect: { demotion: 'pass', 'memory-tiers/node2': 'pass' },
  },
  {
    name: '6.12, memory-only node in DRAM tier 4 (no HMAT), demotion off, memory-tiering: not advised',
    rule: 'demotion',
    profile: 'memory-tiering',
    input: tierInput(4, {}, false),
    expect: { demotion: 'pass', 'memory-tiers/node2': 'warning', 'memory-only-nodes/node2': 'info' },
  },
  {
    name: '6.12, slower tier 18, demotion off, general profile: info',
    rule: 'demotion',
    input: tierInput(18, { numaBalancing: present('proc/sys/kernel/numa_balancing', 0) }, false),
    expect: { demotion: 'info', 'memory-only-nodes/node2': 'info' },
  },
  { name: 'no memory-only node', rule: 'memory-tiers', input: input(), expect: {} },
  {
    name: '6.12, memory-only node in DRAM tier 4 without HMAT, general profile: info naming the cause',
    rule: 'memory-tiers',
    input: tierInput(4, { numaBalancing: present('proc/sys/kernel/numa_balancing', 0) }),
    expect: { 'memory-tiers/node2': 'info', 'memory-only-nodes/node2': 'info' },
  },
  {
    name: '6.1 with HMAT, memory-only node in DRAM tier 4 (HMAT not used for tiers before 6.7)',
    rule: 'memory-tiers',
    profile: 'memory-tiering',
    input: tierInput(4, { kernelRelease: present('proc/sys/kernel/osrelease', '6.1.0-28-amd64') }, false, true),
    expect: { 'memory-tiers/node2': 'warning', 'memory-only-nodes/node2': 'info' },
  },
  {
    name: '6.12, memory-only node in tier 18: a slower tier',
    rule: 'memory-tiers',
    profile: 'memory-tiering',
    input: tierInput(18),
    expect: { 'memory-tiers/node2': 'pass' },
  },
  {
    name: 'memory-tiering, slower tier 18, numa_balancing 1: names the tier it promotes from',
    rule: 'numa-balancing',
    profile: 'memory-tiering',
    input: tierInput(18, { numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }),
    expect: { 'numa-balancing': 'warning' },
  },
  {
    name: 'memory-tiering, memory-only node in DRAM tier 4, numa_balancing 1: tiering mode not advised',
    rule: 'numa-balancing',
    profile: 'memory-tiering',
    input: tierInput(4, { numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }, false),
    expect: { 'numa-balancing': 'pass', 'memory-tiers/node2': 'warning', 'memory-only-nodes/node2': 'info' },
  },
  {
    name: 'memory-tiering, slower tier at 6250 MB/s, limit 65536 MB/s (the default): above a tenth',
    rule: 'promote-rate-limit',
    profile: 'memory-tiering',
    input: tierInput(18, {
      promoteRateLimitMBps: present('proc/sys/kernel/numa_balancing_promote_rate_limit_MBps', 65536),
    }),
    expect: { 'promote-rate-limit': 'warning' },
  },
  {
    name: 'memory-tiering, slower tier at 6250 MB/s, limit 10 MB/s: below a hundredth',
    rule: 'promote-rate-limit',
    profile: 'memory-tiering',
    input: tierInput(18, {
      promoteRateLimitMBps: present('proc/sys/kernel/numa_balancing_promote_rate_limit_MBps', 10),
    }),
    expect: { 'promote-rate-limit': 'warning' },
  },
  { name: 'no slower tier', rule: 'promote-rate-limit', profile: 'memory-tiering', input: input(), expect: {} },
  {
    name: 'memory-tiering, slower tier at 6250 MB/s, limit 600 MB/s',
    rule: 'promote-rate-limit',
    profile: 'memory-tiering',
    input: tierInput(18),
    expect: { 'promote-rate-limit': 'pass' },
  },
  {
    name: 'memory-tiering, slower tier without HMAT figures: no limit to derive',
    rule: 'promote-rate-limit',
    profile: 'memory-tiering',
    input: tierInput(18, {}, true, false),
    expect: { 'promote-rate-limit': 'pass' },
  },
  { name: 'no memory-only node', rule: 'memory-only-nodes', input: input(), expect: {} },
  {
    name: 'offline CPU 7',
    rule: 'node-health',
    input: input({
      topology: topology({ cpus: topology().cpus.map((c) => (c.id === 7 ? { ...c, online: false } : c)) }),
    }),
    expect: { 'node-health/offline-cpus': 'warning' },
  },
  {
    name: 'memoryless node',
    rule: 'node-health',
    input: input({
      topology: topology({
        nodes: withDistances(
          [node(0, [0, 1, 2, 3]), { ...node(1, [4, 5, 6, 7], 0, 0), hasMemory: false }],
          [
            [10, 21],
            [21, 10],
          ],
        ),
      }),
    }),
    expect: { 'node-health/memoryless': 'warning', 'swap/node-pressure': 'pass' },
  },
  {
    name: 'huge pages 512/0',
    rule: 'node-health',
    input: input({
      topology: topology({
        nodes: withDistances(
          [
            { ...node(0, [0, 1, 2, 3]), hugepages: [{ sizeKb: 2048, total: 512, free: 512, surplus: 0 }] },
            { ...node(1, [4, 5, 6, 7]), hugepages: [{ sizeKb: 2048, total: 0, free: 0, surplus: 0 }] },
          ],
          [
            [10, 21],
            [21, 10],
          ],
        ),
      }),
    }),
    expect: { 'node-health/hugepages-2048kB': 'warning' },
  },
  { name: 'healthy nodes', rule: 'node-health', input: input(), expect: {} },
  {
    name: 'powersave governor, latency',
    rule: 'cpufreq-tuned',
    profile: 'latency',
    input: input({
      topology: defragNever,
      governors: ok({ 0: 'powersave', 1: 'performance' }),
      tunedProfile: present('etc/tuned/active_profile', ['latency-performance']),
      comms: ok({ tuned: [600], irqbalance: [700] }),
    }),
    expect: { 'cpufreq-tuned/governor': 'warning' },
  },
  {
    name: 'tuned throughput-performance sets THP always, spark',
    rule: 'cpufreq-tuned',
    profile: 'spark',
    input: input({
      tunedProfile: present('etc/tuned/active_profile', ['throughput-performance']),
      comms: ok({ tuned: [600], irqbalance: [700] }),
      rxQueues: {},
    }),
    expect: { 'cpufreq-tuned/tuned': 'warning' },
  },
  {
    name: 'tuned powersave, throughput',
    rule: 'cpufreq-tuned',
    profile: 'throughput',
    input: input({
      topology: autonumaOn,
      tunedProfile: present('etc/tuned/active_profile', ['powersave']),
      comms: ok({ tuned: [600] }),
      rxQueues: {},
    }),
    expect: { 'cpufreq-tuned/tuned': 'warning', 'irqbalance/nothing-set': 'pass' },
  },
  {
    name: 'performance governor, tuned latency-performance',
    rule: 'cpufreq-tuned',
    profile: 'latency',
    input: input({
      topology: defragNever,
      tunedProfile: present('etc/tuned/active_profile', ['latency-performance']),
      comms: ok({ tuned: [600] }),
    }),
    expect: {},
  },
];

function problems(fs: Finding[]): Record<string, Severity> {
  return Object.fromEntries(fs.filter(isProblem).map((f) => [f.id, f.severity]));
}

describe('doctor rules: each fires and stays quiet', () => {
  for (const c of CASES) {
    it(`${c.rule}: ${c.name}`, () => {
      const profile = profileFor(c.profile ?? 'general', c.input, c.placement);
      const all = RULES.flatMap((r) => r.check(c.input, profile));
      const wanted = Object.fromEntries(
        Object.entries(c.expect).filter(([, s]) => s !== 'pass' && s !== 'not-checked'),
      );
      assert.deepEqual(problems(all), wanted);
      // The case's own rule produced what the case is about.
      const own = ruleById(c.rule)!.check(c.input, profile);
      assert.ok(own.length > 0);
      for (const [id, sev] of Object.entries(c.expect))
        if (id.startsWith(c.rule))
          assert.ok(
            own.some((f) => f.id === id && f.severity === sev),
            `${id} from ${c.rule}`,
          );
    });
  }

  it('every rule has a case where it fires and one where it does not', () => {
    for (const r of RULES) {
      const cases = CASES.filter((c) => c.rule === r.id);
      assert.ok(
        cases.some((c) => Object.keys(c.expect).some((id) => id.startsWith(r.id) && c.expect[id] !== 'pass')),
        `${r.id} fires somewhere`,
      );
      assert.ok(
        cases.some((c) => !Object.keys(c.expect).some((id) => id.startsWith(r.id))),
        `${r.id} quiet somewhere`,
      );
    }
  });
});

describe('doctor rules: memory tiers in words', () => {
  const find = (i: DoctorInput, klass: WorkloadClass, id: string) =>
    RULES.flatMap((r) => r.check(i, profileFor(klass, i))).find((f) => f.id === id)!;
  it('node-layout names SNC2 and what it wants', () => {
    const f = find(input({ topology: snc2 }), 'general', 'node-layout');
    assert.equal(f.title, 'sockets split into 2 nodes each: SNC2');
    assert.match(f.why, /bind per node when the work fits a node's memory/);
  });
  it('numa-balancing under memory-tiering names the slower tier it promotes from', () => {
    const f = find(
      tierInput(18, { numaBalancing: present('proc/sys/kernel/numa_balancing', 1) }),
      'memory-tiering',
      'numa-balancing',
    );
    assert.match(f.title, /promote hot pages from the slower tier \(node 2\)/);
  });
  it("memory-tiers says why a node shares DRAM's tier: no HMAT, or HMAT on a kernel before 6.7", () => {
    const none = find(tierInput(4), 'memory-tiering', 'memory-tiers/node2');
    assert.match(none.why, /no HMAT or CDAT performance data gives node 2 an abstract distance/);
    assert.match(none.why, /demotion and numa_balancing = 2 can do nothing for it/);
    const old = tierInput(4, { kernelRelease: present('proc/sys/kernel/osrelease', '6.1.0-28-amd64') }, true, true);
    assert.match(
      find(old, 'memory-tiering', 'memory-tiers/node2').why,
      /kernel 6\.1\.0-28-amd64 does not rank tiers by them \(6\.7/,
    );
  });
  it('memory-tiering with no slower tier: demotion and tiering mode are moot, saying why', () => {
    const p = profileFor('memory-tiering', tierInput(4, {}, false));
    for (const key of ['demotion', 'autonuma', 'promoteRate'] as const) {
      const r = p.wants[key];
      assert.equal(r?.state, 'moot', key);
      assert.match(r.state === 'moot' ? r.why : '', /node 2 shares DRAM's memory tier/);
    }
  });
  it("promote-rate-limit proposes a tenth of the slowest node's write bandwidth, and accepts down to a hundredth", () => {
    const f = find(
      tierInput(18, { promoteRateLimitMBps: present('proc/sys/kernel/numa_balancing_promote_rate_limit_MBps', 65536) }),
      'memory-tiering',
      'promote-rate-limit',
    );
    assert.ok(isProblem(f));
    assert.deepEqual(
      f.changes.map((c) => [c.target, c.value, 'acceptRange' in c ? c.acceptRange : null]),
      [['kernel.numa_balancing_promote_rate_limit_MBps', '625', [63, 625]]],
    );
  });
});

describe('doctor rules: cases every rule must pass', () => {
  const single = input({
    topology: topology({
      nodes: [node(0, [0, 1, 2, 3], 32)],
      cpus: topology()
        .cpus.filter((c) => c.id < 4)
        .map((c) => ({ ...c, node: 0, package: 0 })),
      devices: [],
    }),
  });
  const bare = input({
    topology: topology({
      kernel: kernel(
        Object.fromEntries(
          Object.keys(kernel())
            .filter((key) => key !== 'numaBalancingScan')
            .map((key) => [key, absent(`x/${key}`, 'missing')]),
        ),
      ),
    }),
    irqs: no('no proc/interrupts'),
    comms: no('no processes'),
    numastat: no('no numastat'),
    governors: no('no cpufreq'),
    processes: no('no processes'),
    ksm: {
      run: absent('sys/kernel/mm/ksm/run', 'no-permission'),
      pagesSharing: absent('a', 'missing'),
      mergeAcrossNodes: absent('b', 'missing'),
    },
    swap: absent('proc/meminfo', 'missing'),
    tunedProfile: absent('etc/tuned/active_profile', 'missing'),
    rqAffinity: [
      { disk: 'nvme0n1', controller: 'nvme0', value: absent('sys/class/block/nvme0n1/queue/rq_affinity', 'missing') },
    ],
  });
  for (const r of RULES) {
    it(`${r.id}: baseline machine, every profile: findings are complete`, () => {
      for (const klass of CLASSES) {
        for (const f of r.check(input(), profileFor(klass, input()))) {
          assert.ok(f.title.length > 0 && f.id.startsWith(r.id) && f.rule === r.id);
          if (isProblem(f))
            assert.ok(
              f.why.length > 0 && f.fix.runtime.length + f.fix.persistent.length + f.fix.manual.length > 0,
              `${f.id} has why and a fix`,
            );
          if (f.severity === 'not-checked') assert.ok(f.reason.length > 0);
        }
      }
    });
    it(`${r.id}: one node: no NUMA problem reported`, () => {
      assert.deepEqual(problems(r.check(single, profileFor('general', single))), {});
    });
    it(`${r.id}: data missing: "not checked" with a reason, never a problem`, () => {
      const fs = r.check(bare, profileFor('database', bare));
      assert.ok(fs.length > 0);
      for (const f of fs) {
        assert.ok(
          !isProblem(f) || r.id === 'node-health' || r.id === 'memory-only-nodes' || r.id === 'cpufreq-tuned',
          `${f.id} is ${f.severity}`,
        );
        if (f.severity === 'not-checked') assert.match(f.reason, /\S/);
      }
    });
  }
});

describe('autonuma-scan: only a value out of range is evidence', () => {
  it('scan_period_min_ms below its floor, scan_size_mb at its floor: the size is not cited', () => {
    const i = k(scan(100, 256));
    const [f] = autonumaScan.check(i, profileFor('general', i));
    assert.ok(f !== undefined && isProblem(f), 'a finding');
    assert.match(f.title, /scan_period_min_ms 100 \(floor \d+\)/);
    assert.doesNotMatch(f.title, /scan_size_mb/);
    assert.deepEqual(
      f.evidence.map((e) => e.path),
      ['proc/sys/kernel/numa_balancing_scan_period_min_ms'],
    );
  });
});
