// Rule 15: processes with much memory and low locality (share of their memory on the nodes
// where they run), named, with a placement to try.
import type { Finding } from '../../model/finding.js';
import type { NodeId } from '../../model/topology.js';
import { formatCpuList } from '../../model/cpuset.js';
import { largeProcessBytes } from '../../model/large_process.js';
import { machineMemoryBytes } from '../../model/topology.js';
import { ev, gib, isMultiNode, nodeCpus, pct, problem, singleNode } from './make.js';
import { coverageEvidence, coveredPass, partlyRead, processScope, type ProcessView } from './process_view.js';
import type { Rule } from './rule.js';

const ID = 'low-locality';
/** Large: 1 GiB, or 5% of a smaller machine's memory (model/large_process.ts). */
const MIN_BYTES = 2 ** 30;
const LOW = 0.5;
const SHOW = 5;

/** The node holding most of the process's memory. */
export function homeNode(p: ProcessView): NodeId | null {
  let best: NodeId | null = null;
  for (const [n, b] of Object.entries(p.bytesByNode))
    if (best === null || b > (p.bytesByNode[best] ?? 0)) best = Number(n);
  return best;
}

function describe(p: ProcessView): string {
  const nodes = Object.entries(p.bytesByNode)
    .map(([n, b]) => `node${n} ${gib(b)}`)
    .join(', ');
  return `${p.comm}(${p.pid}): ${gib(p.totalBytes)} (${nodes}), runs on node ${p.runNodes.join(',') || '?'}, locality ${pct(p.locality ?? 0)}`;
}

export const lowLocality: Rule = {
  id: ID,
  number: 15,
  title: 'processes with much memory and low locality',
  check(input): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'process locality')];
    const scope = processScope(input, ID, 'process locality');
    if (!scope.checked) return [scope.finding];
    const c = scope.coverage;
    const min = largeProcessBytes(MIN_BYTES, machineMemoryBytes(input.topology));
    const low = scope.views
      .filter((p) => p.totalBytes >= min && p.locality !== null && p.locality < LOW)
      .sort((a, b) => b.totalBytes * (1 - b.locality!) - a.totalBytes * (1 - a.locality!));
    if (low.length === 0)
      return [coveredPass(ID, `no process of ${gib(min)} or more has locality under ${pct(LOW)}`, c)];
    const top = low.slice(0, SHOW);
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence: [
          ...top.map((p) => ev(`proc/${p.pid}/numa_maps`, describe(p))),
          ...(partlyRead(c) ? [coverageEvidence(c)] : []),
        ],
        title: `${low.length} large process(es) run away from their memory: ${top.map((p) => `${p.comm}(${p.pid})`).join(', ')}`,
        why: 'most of their memory accesses cross the interconnect: higher latency and lower bandwidth on every miss',
        runtime: top.flatMap((p) => {
          const h = homeNode(p);
          return h === null ? [] : [`taskset -acp ${formatCpuList(nodeCpus(input.topology, h))} ${p.pid}`];
        }),
        persistent: [],
        manual: [
          'the commands run each process on the node that holds most of its memory (or move the memory instead: migratepages PID FROM TO)',
          ...top.map(
            (p) =>
              `start ${p.comm} bound: numakit run --cpunodebind=${homeNode(p) ?? 'N'} --membind=${homeNode(p) ?? 'N'} -- COMMAND (numakit plan service for a unit)`,
          ),
        ],
      }),
    ];
  },
};
