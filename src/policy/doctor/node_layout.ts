// Rule 23: the node layout of the sockets (model/layout.ts): SNC, NPS or L3 as NUMA split a
// socket into several nodes, and what a workload should bind to differs (per node, or per
// socket with its nodes interleaved). Said as info, since the layout is a BIOS choice that may
// be intended; one node per socket passes.
import type { Finding } from '../../model/finding.js';
import { formatCpuList } from '../../model/cpuset.js';
import { nodeLayout } from '../../model/layout.js';
import type { Topology } from '../../model/topology.js';
import { ev, notChecked, pass, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'node-layout';

/** The CPU nodes of the first package, for the per-socket example command. */
function firstSocketNodes(t: Topology): number[] {
  const pkg = t.cpus.find((c) => c.online && c.package !== null)?.package;
  return [...new Set(t.cpus.filter((c) => c.package === pkg && c.node !== null).map((c) => c.node!))].sort(
    (a, b) => a - b,
  );
}

export const nodeLayoutRule: Rule = {
  id: ID,
  number: 23,
  title: 'the node layout of the sockets (SNC, NPS, L3 as NUMA) and what it wants',
  check(input): Finding[] {
    const t = input.topology;
    if (t.nodes.length <= 1) return [singleNode(ID, 'node layout')];
    const l = nodeLayout(t);
    if (l === null)
      return [notChecked(ID, ID, 'node layout', 'a node has CPUs of several packages, or no CPU names its package')];
    const evidence = [
      ev('nodes per package', l.nodesPerPackage),
      ev('L3s per node', l.l3PerNode ?? 'unknown (no cpuN/cache)'),
      ev('distance inside / across packages', `${l.inPackage ?? '-'} / ${l.acrossPackages ?? '-'}`),
      ev('proc/cpuinfo vendor', l.vendor ?? 'unknown'),
    ];
    if (l.kind === 'socket') return [pass(ID, ID, `layout ${l.name}: ${l.advice}`, evidence)];
    const socket = formatCpuList(firstSocketNodes(t));
    return [
      problem(ID, {
        id: ID,
        severity: 'info',
        evidence,
        title: `sockets split into ${l.nodesPerPackage} nodes each: ${l.name}`,
        why: l.advice,
        runtime: [],
        persistent: [],
        manual: [
          'per node: numakit run --cpunodebind=N --membind=N -- COMMAND (one instance per node: numakit plan)',
          `per socket: numakit run --cpunodebind=${socket} --interleave=${socket} -- COMMAND`,
        ],
      }),
    ];
  },
};
