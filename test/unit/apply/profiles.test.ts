// apply's profiles: the knowledge table's settings turned into changes (policy/tuning/build.ts),
// with the cases every profile must pass written once, then what each profile sets.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { discoverTopology } from '../../../src/discover/topology.js';
import { parseIrqList, sameTarget, type Change } from '../../../src/model/change.js';
import { formatCpuList, parseCpuList, parseCpuMask } from '../../../src/model/cpuset.js';
import { cpusOfNode, type Topology } from '../../../src/model/topology.js';
import { choosePlacement } from '../../../src/policy/knowledge/placement.js';
import { profileByName } from '../../../src/policy/knowledge/profiles.js';
import { machineFacts, resolveProfile } from '../../../src/policy/knowledge/resolve.js';
import { CLASSES, type Placement, type WorkloadClass } from '../../../src/policy/knowledge/types.js';
import { allChanges, buildTuning } from '../../../src/policy/tuning/build.js';
import type { TuningInput } from '../../../src/policy/tuning/input.js';
import { openRoot } from '../../../src/sysfs/root.js';

const example = (name: string) =>
  discoverTopology(openRoot(fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url))));
const SPARK = example('spark-2s');
const NO_NODES: Topology = { ...SPARK, devices: SPARK.devices.map((d) => ({ ...d, node: null })) };

const INPUTS: Record<string, TuningInput> = {
  'spark-2s, irqbalance and ksmtuned running': {
    topology: SPARK,
    services: { irqbalance: 'running', ksmtuned: 'running' },
    irqTotals: {},
  },
  'spark-2s, irqbalance running with a socket banning IRQ 7': {
    topology: SPARK,
    services: { irqbalance: 'running' },
    irqTotals: {},
    irqbalanceBanned: [7],
  },
  'spark-2s, no services installed': { topology: SPARK, services: {}, irqTotals: {} },
  'spark-2s, irqbalance stopped': { topology: SPARK, services: { irqbalance: 'stopped' }, irqTotals: {} },
  'devices with unknown node': { topology: NO_NODES, services: { irqbalance: 'running' }, irqTotals: {} },
};

function changes(klass: WorkloadClass, input: TuningInput, placement?: Placement): Change[] {
  const p = choosePlacement(klass, placement, () => ({ value: null, how: 'unknown', detail: 'unknown: test' }));
  return allChanges(buildTuning(resolveProfile({ klass, alias: null }, machineFacts(input.topology), p), input));
}

const nodeCpus = (topo: Topology, node: number) =>
  cpusOfNode(topo, node)
    .map((c) => c.id)
    .join(',');

// Cases every profile must pass, written once.
const COMMON: Array<[string, (changes: Change[], input: TuningInput) => void]> = [
  [
    'no target twice',
    (cs) => cs.forEach((c, i) => assert.ok(!cs.slice(i + 1).some((d) => sameTarget(c, d)), `twice: ${c.target}`)),
  ],
  [
    "IRQs only of devices with a known node, on exactly that node's CPUs (or a part of them)",
    (cs, { topology }) => {
      for (const c of cs.filter((x) => x.kind === 'irq-affinity')) {
        const dev = topology.devices.find((d) => d.irqs.includes(c.target as number))!;
        assert.notEqual(dev.node, null);
        assert.equal(parseCpuList(c.value).join(','), nodeCpus(topology, dev.node!));
        assert.equal(c.kind === 'irq-affinity' && c.subset, true);
      }
    },
  ],
  [
    'no NVMe queue IRQ (kernel-managed)',
    (cs, { topology }) => {
      const nvme = new Set(topology.devices.filter((d) => d.kind === 'nvme').flatMap((d) => d.irqs));
      assert.ok(!cs.some((c) => c.kind === 'irq-affinity' && nvme.has(c.target)));
    },
  ],
  [
    'irqbalance stopped only when it runs, has no socket and IRQs are pinned, before any pin',
    (cs, input) => {
      const pins = cs.findIndex((c) => c.kind === 'irq-affinity');
      const stop = cs.findIndex((c) => c.kind === 'service' && c.target === 'irqbalance');
      if (stop >= 0)
        assert.ok(pins >= 0 && input.services.irqbalance === 'running' && !input.irqbalanceBanned && stop < pins);
    },
  ],
  [
    'a steerable irqbalance keeps running and is told, before any pin, to leave every pinned IRQ (and those it left before) alone',
    (cs, input) => {
      const ban = cs.findIndex((c) => c.kind === 'irqbalance-ban');
      const pinned = cs.flatMap((c) => (c.kind === 'irq-affinity' ? [c.target] : []));
      if (ban < 0) return;
      assert.ok(input.irqbalanceBanned && pinned.length > 0 && ban < cs.findIndex((c) => c.kind === 'irq-affinity'));
      const value = parseIrqList(cs[ban]!.value);
      for (const irq of [...pinned, ...input.irqbalanceBanned]) assert.ok(value.includes(irq));
    },
  ],
  [
    'no service change for a unit that is not installed or already stopped',
    (cs, input) => {
      for (const c of cs.filter((x) => x.kind === 'service'))
        assert.equal(input.services[c.target as string], 'running');
    },
  ],
  ['every change says why', (cs) => cs.forEach((c) => assert.ok(c.reason.length > 10, `${c.target}`))],
  ['zone_reclaim_mode 0', (cs) => assert.ok(cs.some((c) => c.target === 'vm.zone_reclaim_mode' && c.value === '0'))],
];

for (const klass of CLASSES) {
  for (const [inputName, input] of Object.entries(INPUTS)) {
    test(`${klass} on ${inputName}: common cases`, () => {
      const cs = changes(klass, input);
      for (const [name, check] of COMMON) assert.doesNotThrow(() => check(cs, input), name);
      assert.deepEqual(changes(klass, input), cs, 'pure: the same input gives the same changes');
    });
  }
}

const value = (cs: Change[], target: string) => cs.find((c) => c.target === target)?.value;
const accept = (cs: Change[], target: string) => {
  const c = cs.find((x) => x.target === target);
  return c && (c.kind === 'sysctl' || c.kind === 'sysfs') ? c.accept : undefined;
};
const on = (klass: WorkloadClass, placement?: Placement) =>
  changes(klass, INPUTS['spark-2s, irqbalance and ksmtuned running']!, placement);
const THP = 'sys/kernel/mm/transparent_hugepage';

test('spark: THP never (madvise accepted), numa_balancing 0, 16 IRQs per NIC pinned after irqbalance stops, rq_affinity 2, governor, RPS', () => {
  const cs = on('spark');
  assert.equal(value(cs, `${THP}/enabled`), 'never');
  assert.deepEqual(accept(cs, `${THP}/enabled`), ['madvise']);
  assert.equal(value(cs, 'kernel.numa_balancing'), '0');
  const irqs = cs.filter((c) => c.kind === 'irq-affinity');
  assert.equal(irqs.length, 32);
  assert.deepEqual(
    [...new Set(irqs.map((c) => c.value))],
    [0, 1].map((n) => formatCpuList(cpusOfNode(SPARK, n).map((c) => c.id))),
  );
  assert.ok(cs.some((c) => c.kind === 'service' && c.target === 'irqbalance' && c.value === 'stopped'));
  assert.equal(value(cs, 'sys/class/block/nvme1n1/queue/rq_affinity'), '2');
  assert.equal(value(cs, 'sys/devices/system/cpu/cpu63/cpufreq/scaling_governor'), 'performance');
  assert.equal(value(cs, 'sys/class/net/ens2f0/queues/rx-15/rps_flow_cnt'), '2048');
});

test('spark with a steerable irqbalance: no stop, one ban of the 32 pinned IRQs plus the one it had', () => {
  const cs = changes('spark', INPUTS['spark-2s, irqbalance running with a socket banning IRQ 7']!);
  assert.ok(!cs.some((c) => c.kind === 'service' && c.target === 'irqbalance'));
  const bans = cs.filter((c) => c.kind === 'irqbalance-ban');
  assert.equal(bans.length, 1);
  assert.equal(parseIrqList(bans[0]!.value).length, 33);
  assert.equal(parseIrqList(bans[0]!.value)[0], 7);
});

test('database: AutoNUMA by placement (unpinned: on with slow scans; bound: off; unknown: left alone), THP madvise, swappiness <= 10, KSM off after ksmtuned', () => {
  const unpinned = on('database', 'unpinned');
  assert.deepEqual(
    [
      'kernel.numa_balancing',
      'kernel.numa_balancing_scan_delay_ms',
      'kernel.numa_balancing_scan_period_min_ms',
      'kernel.numa_balancing_scan_period_max_ms',
      'kernel.numa_balancing_scan_size_mb',
      'vm.swappiness',
    ].map((t) => value(unpinned, t)),
    ['1', '1000', '60000', '300000', '256', '10'],
  );
  assert.deepEqual(accept(unpinned, 'vm.swappiness'), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  const bound = on('database', 'bound');
  assert.equal(value(bound, 'kernel.numa_balancing'), '0');
  assert.ok(
    !bound.some((c) => c.target.toString().startsWith('kernel.numa_balancing_scan')),
    'AutoNUMA off: no scan rate',
  );
  assert.equal(value(on('database'), 'kernel.numa_balancing'), undefined, 'placement unknown: AutoNUMA left alone');
  assert.equal(value(unpinned, `${THP}/defrag`), 'madvise');
  assert.equal(value(unpinned, 'sys/kernel/mm/ksm/run'), '2');
  assert.deepEqual(accept(unpinned, 'sys/kernel/mm/ksm/run'), ['0']);
  const stopKsmtuned = unpinned.findIndex((c) => c.target === 'ksmtuned');
  assert.ok(
    stopKsmtuned >= 0 && stopKsmtuned < unpinned.findIndex((c) => c.target === 'sys/kernel/mm/ksm/run'),
    'ksmtuned stops before KSM is turned off',
  );
  assert.ok(
    !unpinned.some((c) => c.kind === 'service' && c.target === 'irqbalance'),
    'local IRQ placement: irqbalance keeps running',
  );
});

test("throughput: RPS masks of the NIC's node and power-of-two flow counts (16 queues: 32768/16 = 2048), THP always, AutoNUMA on", () => {
  const cs = on('throughput');
  assert.equal(value(cs, 'net.core.rps_sock_flow_entries'), '32768');
  assert.equal(value(cs, 'sys/class/net/ens2f0/queues/rx-15/rps_flow_cnt'), '2048');
  assert.equal(parseCpuMask(value(cs, 'sys/class/net/ens2f0/queues/rx-0/rps_cpus')!).join(','), nodeCpus(SPARK, 1));
  assert.equal(value(cs, `${THP}/enabled`), 'always');
  assert.equal(value(cs, 'kernel.numa_balancing'), '1');
});

test('latency: numa_balancing 0, THP madvise with defrag never', () => {
  assert.deepEqual(
    ['kernel.numa_balancing', `${THP}/enabled`, `${THP}/defrag`].map((t) => value(on('latency'), t)),
    ['0', 'madvise', 'never'],
  );
});

test('memory-tiering: numa_balancing 2 and demotion on a machine with a CXL node; nothing to tier on spark-2s', () => {
  const cxl = example('cxl-3node');
  const cs = changes('memory-tiering', { topology: cxl, services: {}, irqTotals: {} });
  assert.equal(value(cs, 'kernel.numa_balancing'), '2');
  assert.equal(value(cs, 'sys/kernel/mm/numa/demotion_enabled'), 'true');
  assert.equal(value(on('memory-tiering'), 'kernel.numa_balancing'), undefined);
});

test('one node (vm-flat-32): no AutoNUMA, zone_reclaim or IRQ placement from any profile', () => {
  const vm = example('vm-flat-32');
  for (const klass of CLASSES) {
    const cs = changes(klass, { topology: vm, services: { irqbalance: 'running' }, irqTotals: {} });
    assert.ok(
      !cs.some(
        (c) => c.target === 'kernel.numa_balancing' || c.target === 'vm.zone_reclaim_mode' || c.kind === 'irq-affinity',
      ),
      klass,
    );
  }
});

test('profile names: aliases say what they map to; an unknown name lists the profiles', () => {
  assert.deepEqual(profileByName('spark-pinned'), { klass: 'spark', alias: 'spark-pinned' });
  assert.throws(
    () => profileByName('fast'),
    /--profile fast: unknown profile; one of general, spark, database, latency, throughput, jvm, memory-tiering \(aliases: spark-pinned = spark/,
  );
});
