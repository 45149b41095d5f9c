// Rule 17: memory-only (CPU-less) nodes: CXL expanders, HBM, persistent memory as RAM.
// No CPU is local to them, so first-touch and the default policy never allocate there unless
// a policy names them (membind/preferred/interleave) or memory tiering demotes pages to them.
// Whether they are a slower tier at all is the memory-tiers rule's; demotion, the demotion rule's.
import type { Finding } from '../../model/finding.js';
import { memoryOnlyInDramTier, slowerTier } from '../../model/tiers.js';
import type { NodeId, NumaNode, Topology } from '../../model/topology.js';
import { wanted } from '../knowledge/resolve.js';
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
  id: ID,
  number: 17,
  title: 'memory-only (CPU-less) nodes and who is nearest',
  check(input, profile): Finding[] {
    const t = input.topology;
    const only = t.nodes.filter((n) => n.cpus.length === 0 && (n.memTotalBytes ?? 0) > 0);
    if (only.length === 0) return [pass(ID, ID, 'every node with memory has CPUs')];
    const slower = new Set(slowerTier(t).nodes);
    const shared = new Set(memoryOnlyInDramTier(t).map((n) => n.id));
    return only.map((n) => {
      const near = nearestCpuNodes(t, n);
      const cpuNode = near[0] ?? 0;
      if (wanted(profile, 'demotion') !== null && slower.has(n.id))
        return pass(
          ID,
          `${ID}/node${n.id}`,
          `node ${n.id} (${gib(n.memTotalBytes!)}, no CPUs) is the slower tier of the ${profile.name} profile; nearest CPU node(s): ${near.join(',') || 'unknown'}`,
        );
      return problem(ID, {
        id: `${ID}/node${n.id}`,
        severity: 'info',
        evidence: [
          ev(`sys/devices/system/node/node${n.id}/cpulist`, '(empty)'),
          ev(`sys/devices/system/node/node${n.id}/meminfo`, `MemTotal ${gib(n.memTotalBytes!)}`),
          ev(
            `sys/devices/system/node/node${n.id}/distance`,
            Object.entries(n.distances)
              .map(([k, d]) => `node${k}:${d}`)
              .join(' '),
          ),
        ],
        title: `node ${n.id} has ${gib(n.memTotalBytes!)} and no CPUs; nearest CPU node(s): ${near.join(',') || 'unknown'}`,
        why: "the default policy allocates on the running CPU's node, so this memory stays unused unless a process asks for it or tiering demotes to it",
        runtime: [],
        persistent: [],
        manual: [
          `use it explicitly: numakit run --cpunodebind=${cpuNode} --membind=${cpuNode},${n.id} -- COMMAND (or --interleave=${cpuNode},${n.id} for bandwidth); systemd: NUMAPolicy=interleave NUMAMask=${cpuNode},${n.id}`,
          shared.has(n.id)
            ? `not as a slower tier while the kernel keeps it in DRAM's memory tier ${n.memoryTier} (see memory-tiers)`
            : 'or as a slower tier (hot pages promoted, cold pages demoted, 5.18+): numakit apply --profile memory-tiering',
        ],
      });
    });
  },
};
