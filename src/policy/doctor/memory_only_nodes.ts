// Rule 17: memory-only (CPU-less) nodes: CXL expanders, HBM, persistent memory as RAM.
// No CPU is local to them, so first-touch and the default policy never allocate there unless
// a policy names them (membind/preferred/interleave) or memory tiering demotes pages to them.
import type { Finding } from '../../model/finding.js';
import type { NodeId, NumaNode, Topology } from '../../model/topology.js';
import { ev, gib, pass, problem } from './make.js';
import type { Rule } from './rule.js';

const ID = 'memory-only-nodes';

/** CPU nodes at the smallest distance from `node`. */
export function nearestCpuNodes(t: Topology, node: NumaNode): NodeId[] {
  const cands = t.nodes.filter((n) => n.cpus.length > 0 && node.distances[n.id] !== undefined);
  if (cands.length === 0) return [];
  const best = Math.min(...cands.map((n) => node.distances[n.id]!));
  return cands.filter((n) => node.distances[n.id] === best).map((n) => n.id);
}

export const memoryOnlyNodes: Rule = {
  id: ID, number: 17, title: 'memory-only (CPU-less) nodes and who is nearest',
  check(input): Finding[] {
    const t = input.topology;
    const only = t.nodes.filter((n) => n.cpus.length === 0 && (n.memTotalBytes ?? 0) > 0);
    if (only.length === 0) return [pass(ID, ID, 'every node with memory has CPUs')];
    return only.map((n) => {
      const near = nearestCpuNodes(t, n);
      const cpuNode = near[0] ?? 0;
      return problem(ID, {
        id: `${ID}/node${n.id}`, severity: 'info',
        evidence: [ev(`sys/devices/system/node/node${n.id}/cpulist`, '(empty)'), ev(`sys/devices/system/node/node${n.id}/meminfo`, `MemTotal ${gib(n.memTotalBytes!)}`), ev(`sys/devices/system/node/node${n.id}/distance`, Object.entries(n.distances).map(([k, d]) => `node${k}:${d}`).join(' '))],
        title: `node ${n.id} has ${gib(n.memTotalBytes!)} and no CPUs; nearest CPU node(s): ${near.join(',') || 'unknown'}`,
        why: 'the default policy allocates on the running CPU\'s node, so this memory stays unused unless a process asks for it or tiering demotes to it',
        runtime: [
          `numakit run --cpunodebind=${cpuNode} --membind=${cpuNode},${n.id} -- ...   # or --interleave=${cpuNode},${n.id} for bandwidth`,
          'sysctl -w kernel.numa_balancing=2; echo true > /sys/kernel/mm/numa/demotion_enabled   # tiering: demote cold pages to it (5.18+)',
        ],
        persistent: [`systemd: NUMAPolicy=interleave NUMAMask=${cpuNode},${n.id} for services that should use it`],
      });
    });
  },
};
