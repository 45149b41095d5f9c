import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { discoverTopology } from '../../../src/discover/topology.js';
import { sameTarget, type Change } from '../../../src/model/change.js';
import { formatCpuList, parseCpuList, parseCpuMask } from '../../../src/model/cpuset.js';
import { cpusOfNode, type Topology } from '../../../src/model/topology.js';
import type { TuningInput } from '../../../src/policy/tuning/input.js';
import { PROFILES, profileByName } from '../../../src/policy/tuning/profiles.js';
import { openRoot } from '../../../src/sysfs/root.js';

const SPARK = discoverTopology(openRoot(fileURLToPath(new URL('../../../examples/spark-2s', import.meta.url))));
const NO_NODES: Topology = { ...SPARK, devices: SPARK.devices.map((d) => ({ ...d, node: null })) };

const INPUTS: Record<string, TuningInput> = {
  'spark-2s, irqbalance and ksmtuned running': { topology: SPARK, services: { irqbalance: 'running', ksmtuned: 'running' } },
  'spark-2s, no services installed': { topology: SPARK, services: {} },
  'spark-2s, irqbalance stopped': { topology: SPARK, services: { irqbalance: 'stopped' } },
  'devices with unknown node': { topology: NO_NODES, services: { irqbalance: 'running' } },
};

const nodeCpus = (topo: Topology, node: number) => cpusOfNode(topo, node).map((c) => c.id).join(',');

// Cases every profile must pass, written once.
const COMMON: Array<[string, (changes: Change[], input: TuningInput) => void]> = [
  ['no target twice', (cs) => cs.forEach((c, i) => assert.ok(!cs.slice(i + 1).some((d) => sameTarget(c, d)), `twice: ${c.target}`))],
  ['IRQs only of devices with a known node, on exactly that node\'s CPUs', (cs, { topology }) => {
    for (const c of cs.filter((x) => x.kind === 'irq-affinity')) {
      const dev = topology.devices.find((d) => d.irqs.includes(c.target as number))!;
      assert.notEqual(dev.node, null);
      assert.equal(parseCpuList(c.value).join(','), nodeCpus(topology, dev.node!));
    }
  }],
  ['no NVMe queue IRQ (kernel-managed)', (cs, { topology }) => {
    const nvme = new Set(topology.devices.filter((d) => d.kind === 'nvme').flatMap((d) => d.irqs));
    assert.ok(!cs.some((c) => c.kind === 'irq-affinity' && nvme.has(c.target)));
  }],
  ['irqbalance stopped iff it runs and IRQs are pinned, before any pin', (cs, input) => {
    const pins = cs.findIndex((c) => c.kind === 'irq-affinity');
    const stop = cs.findIndex((c) => c.kind === 'service' && c.target === 'irqbalance');
    assert.equal(stop >= 0, pins >= 0 && input.services.irqbalance === 'running');
    if (stop >= 0) assert.ok(stop < pins);
  }],
  ['no service change for a unit that is not installed or already stopped', (cs, input) => {
    for (const c of cs.filter((x) => x.kind === 'service')) assert.equal(input.services[c.target as string], 'running');
  }],
  ['every change says why', (cs) => cs.forEach((c) => assert.ok(c.reason.length > 10, `${c.target}`))],
  ['zone_reclaim_mode 0', (cs) => assert.ok(cs.some((c) => c.target === 'vm.zone_reclaim_mode' && c.value === '0'))],
  ['pure: the same input gives the same changes', (cs, input) => assert.deepEqual(profileByName(PROFILE_OF.get(cs)!).build(input), cs)],
];
const PROFILE_OF = new WeakMap<Change[], string>();

for (const profile of PROFILES) {
  for (const [inputName, input] of Object.entries(INPUTS)) {
    test(`${profile.name} on ${inputName}: common cases`, () => {
      const changes = profile.build(input);
      PROFILE_OF.set(changes, profile.name);
      for (const [name, check] of COMMON) assert.doesNotThrow(() => check(changes, input), name);
    });
  }
}

const value = (cs: Change[], target: string) => cs.find((c) => c.target === target)?.value;
const spark = (name: string) => profileByName(name).build(INPUTS['spark-2s, irqbalance and ksmtuned running']!);

test('spark-pinned: THP never, numa_balancing 0, each NIC\'s 16 IRQs on its node, NVMe rq_affinity 2', () => {
  const cs = spark('spark-pinned');
  assert.equal(value(cs, 'sys/kernel/mm/transparent_hugepage/enabled'), 'never');
  assert.equal(value(cs, 'kernel.numa_balancing'), '0');
  const irqs = cs.filter((c) => c.kind === 'irq-affinity');
  assert.equal(irqs.length, 32);
  assert.deepEqual([...new Set(irqs.map((c) => c.value))], [0, 1].map((n) => formatCpuList(cpusOfNode(SPARK, n).map((c) => c.id))));
  assert.ok(!cs.some((c) => c.kind === 'irq-affinity' && c.value === ''));
  assert.equal(value(cs, 'sys/class/block/nvme1n1/queue/rq_affinity'), '2');
});

test('database: AutoNUMA on with the slow scan parameters, THP madvise, swappiness 10, KSM and ksmtuned off', () => {
  const cs = spark('database');
  assert.deepEqual(
    ['kernel.numa_balancing', 'kernel.numa_balancing_scan_delay_ms', 'kernel.numa_balancing_scan_period_min_ms', 'kernel.numa_balancing_scan_period_max_ms', 'kernel.numa_balancing_scan_size_mb', 'vm.swappiness'].map((t) => value(cs, t)),
    ['1', '1000', '60000', '300000', '256', '10'],
  );
  assert.equal(value(cs, 'sys/kernel/mm/transparent_hugepage/defrag'), 'madvise');
  assert.equal(value(cs, 'sys/kernel/mm/ksm/run'), '0');
  const stopKsmtuned = cs.findIndex((c) => c.target === 'ksmtuned');
  assert.ok(stopKsmtuned >= 0 && stopKsmtuned < cs.findIndex((c) => c.target === 'sys/kernel/mm/ksm/run'), 'ksmtuned stops before KSM is turned off');
});

test('throughput: RPS masks of the NIC\'s node and power-of-two flow counts (16 queues: 32768/16 = 2048)', () => {
  const cs = spark('throughput');
  assert.equal(value(cs, 'net.core.rps_sock_flow_entries'), '32768');
  assert.equal(value(cs, 'sys/class/net/ens2f0/queues/rx-15/rps_flow_cnt'), '2048');
  assert.equal(parseCpuMask(value(cs, 'sys/class/net/ens2f0/queues/rx-0/rps_cpus')!).join(','), nodeCpus(SPARK, 1));
  assert.equal(value(cs, 'sys/kernel/mm/transparent_hugepage/enabled'), 'always');
});

test('latency: numa_balancing 0, THP madvise with defrag never', () => {
  const cs = spark('latency');
  assert.deepEqual(['kernel.numa_balancing', 'sys/kernel/mm/transparent_hugepage/enabled', 'sys/kernel/mm/transparent_hugepage/defrag'].map((t) => value(cs, t)), ['0', 'madvise', 'never']);
});

test('an unknown profile is a usage error listing the profiles', () => {
  assert.throws(() => profileByName('fast'), /unknown profile 'fast'; profiles: spark-pinned, database, throughput, latency/);
});
