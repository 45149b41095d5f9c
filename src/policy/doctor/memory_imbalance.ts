// Rule 13: node memory imbalance: one node above 90% used while another is below 50%
// (the alert threshold of report 001). Used = MemTotal - MemFree, page cache included, as
// numastat -m shows it.
import type { Finding } from '../../model/finding.js';
import { ev, gib, isMultiNode, notChecked, pass, pct, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'memory-imbalance';
const HIGH = 0.9;
const LOW = 0.5;

export const memoryImbalance: Rule = {
  id: ID,
  number: 13,
  title: 'one node above 90% used while another is below 50%',
  check(input): Finding[] {
    const t = input.topology;
    if (!isMultiNode(t)) return [singleNode(ID, 'memory balance')];
    const nodes = t.nodes.filter((n) => n.memTotalBytes !== null && n.memTotalBytes > 0 && n.memFreeBytes !== null);
    if (nodes.length < 2) return [notChecked(ID, ID, 'node memory balance', 'fewer than two nodes have nodeN/meminfo')];
    const used = (n: (typeof nodes)[number]) => 1 - n.memFreeBytes! / n.memTotalBytes!;
    const evidence = nodes.map((n) =>
      ev(
        `sys/devices/system/node/node${n.id}/meminfo`,
        `${pct(used(n))} used (${gib(n.memTotalBytes! - n.memFreeBytes!)} of ${gib(n.memTotalBytes!)})`,
      ),
    );
    const high = nodes.filter((n) => used(n) > HIGH);
    const low = nodes.filter((n) => used(n) < LOW);
    if (high.length === 0 || low.length === 0) return [pass(ID, ID, 'node memory use is balanced enough', evidence)];
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence,
        title: `node ${high.map((n) => n.id).join(',')} is over ${HIGH * 100}% used while node ${low.map((n) => n.id).join(',')} is under ${LOW * 100}%`,
        why: "new allocations on the full node spill remote (numa_miss) or trigger reclaim, while the other node's memory sits idle",
        runtime: [],
        persistent: [],
        manual: [
          'find which processes fill the full node: numakit stat --procs',
          'move or restart them with interleave or on the other node: numakit run --interleave=all -- COMMAND, or --membind=N',
          'spread the workload: one instance per node (numakit plan), or interleave large shared memory',
        ],
      }),
    ];
  },
};
