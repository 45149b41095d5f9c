// Rule 14: the kernel's allocation counters (nodeN/numastat, pages since boot). numa_miss:
// allocated here though intended for another node (that node was full); other_node: allocated
// here for a process running on another node. Report 002 got other-node share under 7% after
// tuning; 10% is flagged.
import type { NumastatCounters } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { ev, isMultiNode, notChecked, pass, pct, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'numa-miss';
const MISS_SHARE = 0.05;
const OTHER_SHARE = 0.1;

function sum(rows: NumastatCounters[], k: keyof NumastatCounters): number {
  return rows.reduce((s, r) => s + r[k], 0);
}

export const numaMiss: Rule = {
  id: ID,
  number: 14,
  title: 'high numa_miss/numa_foreign or other_node share in the counters',
  check(input): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'NUMA counters')];
    if (!input.numastat.ok) return [notChecked(ID, ID, 'NUMA allocation counters', input.numastat.reason)];
    const byNode = input.numastat.value;
    const rows = Object.values(byNode);
    const hit = sum(rows, 'numa_hit');
    const miss = sum(rows, 'numa_miss');
    const local = sum(rows, 'local_node');
    const other = sum(rows, 'other_node');
    if (hit + miss === 0 || local + other === 0)
      return [notChecked(ID, ID, 'NUMA allocation counters', 'all counters are zero')];
    const missShare = miss / (hit + miss);
    const otherShare = other / (local + other);
    const evidence = Object.entries(byNode).map(([n, c]) =>
      ev(
        `sys/devices/system/node/node${n}/numastat`,
        `numa_hit ${c.numa_hit} numa_miss ${c.numa_miss} numa_foreign ${c.numa_foreign} local_node ${c.local_node} other_node ${c.other_node}`,
      ),
    );
    if (missShare < MISS_SHARE && otherShare < OTHER_SHARE) {
      return [pass(ID, ID, `numa_miss ${pct(missShare)}, other_node ${pct(otherShare)} of allocations`, evidence)];
    }
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence,
        title: `${pct(missShare)} of allocations missed their node (numa_miss) and ${pct(otherShare)} served a process on another node (other_node), since boot`,
        why:
          missShare >= MISS_SHARE
            ? 'nodes run out of memory and allocations fall back to remote nodes'
            : 'processes run on one node and allocate on another: their memory accesses cross the interconnect',
        runtime: [],
        persistent: [],
        manual: [
          'see the rates now, not since boot: numakit stat --watch 5; and which processes are remote: numakit stat --procs (see low-locality)',
          'bind each large process to one node (numakit run --cpunodebind=N --membind=N -- COMMAND), or let AutoNUMA move unpinned ones',
        ],
      }),
    ];
  },
};
