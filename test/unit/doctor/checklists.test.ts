// The field reports' own checklists, paraphrased, each with the doctor rules that cover it:
// report 000's on-site checklist and pitfalls (Spark), report 002's on-call steps and pitfalls
// (MySQL with AutoNUMA). Items that are not machine checks (JVM flags, Spark memory sizing)
// name the command that handles them instead.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ruleById } from '../../../src/policy/doctor/rules.js';

interface Item {
  readonly item: string;
  readonly rules: readonly string[];
  /** Set when no doctor rule can check it: where numakit handles it instead. */
  readonly elsewhere?: string;
}

const REPORT_000_CHECKLIST: Item[] = [
  {
    item: 'map CPUs, nodes, NVMe and NICs against each other (numactl --hardware, lscpu -e)',
    rules: ['numa-off', 'device-node'],
  },
  {
    item: 'THP off and automatic NUMA balancing off; tuned throughput-performance on',
    rules: ['thp', 'numa-balancing', 'cpufreq-tuned'],
  },
  { item: 'NIC interrupts bound per node, and not taken back by irqbalance', rules: ['irq-locality', 'irqbalance'] },
  { item: 'one NVMe per node, its numa_node confirmed', rules: ['device-node', 'irq-locality'] },
  {
    item: 'one executor per node (two standalone workers, or YARN cgroups plus a numactl wrapper)',
    rules: ['pinned-remote', 'low-locality'],
  },
  {
    item: 'JVM flags UseNUMA, AlwaysPreTouch, G1',
    rules: [],
    elsewhere: 'numakit plan spark (issue 7): not visible in /sys or /proc',
  },
  {
    item: 'executor memoryOverhead at least 10-15%, watch RSS and OOM kills',
    rules: [],
    elsewhere: 'numakit plan spark (issue 7): a Spark setting',
  },
  { item: 'verify with numastat, GC logs and NVMe/NIC metrics', rules: ['numa-miss', 'low-locality'] },
];

const REPORT_000_PITFALLS: Item[] = [
  { item: 'THP left on: GC jitter, page-fault storms', rules: ['thp'] },
  { item: 'numa_balancing left on: pages migrating back and forth', rules: ['numa-balancing'] },
  { item: 'NVMe or NIC not on the local node', rules: ['device-node', 'irq-locality'] },
  { item: 'irqbalance rewrites hand-set interrupt affinity', rules: ['irqbalance'] },
];

const REPORT_002_ON_CALL: Item[] = [
  { item: 'NUMA topology (lscpu, numactl -H)', rules: ['numa-off', 'vm-vnuma'] },
  { item: 'AutoNUMA state and its scan parameters', rules: ['numa-balancing', 'autonuma-scan'] },
  {
    item: 'access statistics over 10-30 minutes (numastat, vmstat, iostat, sar)',
    rules: ['numa-miss', 'low-locality'],
  },
  {
    item: 'interrupts and queues: /proc/interrupts, NIC numa_node, NVMe rq_affinity',
    rules: ['irq-locality', 'device-node', 'io-queues'],
  },
  {
    item: 'quick tuning: AutoNUMA on with slow scans, THP madvise, rq_affinity 2',
    rules: ['numa-balancing', 'autonuma-scan', 'thp', 'io-queues'],
  },
];

const REPORT_002_PITFALLS: Item[] = [
  { item: 'numa=off or numa_balancing=disable on the kernel command line', rules: ['numa-off'] },
  { item: 'BIOS node interleaving on: one node only', rules: ['numa-off'] },
  {
    item: 'systemd or cgroup cpuset pins the database, AutoNUMA cannot move it',
    rules: ['pinned-remote', 'numa-balancing'],
  },
  { item: 'THP always: periodic latency spikes', rules: ['thp'] },
  { item: 'KVM guest NUMA differs from the host (no vNUMA)', rules: ['vm-vnuma'] },
  { item: 'scan parameters too aggressive: sy time up', rules: ['autonuma-scan'] },
  { item: 'memory latency mistaken for disk latency: look at numastat first', rules: ['numa-miss'] },
  { item: 'zone_reclaim_mode 0, swappiness 10, KSM off', rules: ['zone-reclaim', 'swap', 'ksm'] },
  { item: 'NIC/NVMe on another node with interrupts not bound back', rules: ['irq-locality'] },
];

const LISTS: [string, Item[]][] = [
  ['report 000 checklist', REPORT_000_CHECKLIST],
  ['report 000 pitfalls', REPORT_000_PITFALLS],
  ['report 002 on-call steps', REPORT_002_ON_CALL],
  ['report 002 pitfalls', REPORT_002_PITFALLS],
];

describe("the field reports' checklists are covered by doctor rules", () => {
  for (const [name, items] of LISTS) {
    for (const it_ of items) {
      it(`${name}: ${it_.item}`, () => {
        if (it_.rules.length === 0) {
          assert.ok(it_.elsewhere, 'an item no rule covers must say where it is handled');
          return;
        }
        for (const id of it_.rules) assert.ok(ruleById(id), `rule ${id} exists`);
      });
    }
  }
});
