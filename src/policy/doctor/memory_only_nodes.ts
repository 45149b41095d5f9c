// Rule 17: memory-only (CPU-less) nodes: CXL expanders, HBM, persistent memory as RAM.
// No CPU is local to them, so first-touch and the default policy never allocate there unless
// a policy names them (membind/preferred/interleave) or memory tiering demotes pages to them.
// The memory-tiering profile wants demotion to them on (policy/knowledge).
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import type { NodeId, NumaNode, Topology } from '../../model/topology.js';
import { wanted } from '../knowledge/resolve.js';
import { demotionChanges } from '../tuning/memory.js';
import { absentReason, commandsFor, ev, evFact, gib, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'memory-only-nodes';

/** CPU nodes at the smallest distance from `node`. */
export function nearestCpuNodes(t: Topology, node: NumaNode): NodeId[] {
  const cands = t.nodes.filter((n) => n.cpus.length > 0 && node.distances[n.id] !== undefined);
  if (cands.length === 0) return [];
  const best = Math.min(...cands.map((n) => node.distances[n.id]!));
  return cands.filter((n) => node.distances[n.id] === best).map((n) => n.id);
}

function demotion(input: DoctorInput, profile: Profile): Finding[] {
  const want = wanted(profile, 'demotion');
  if (want === null) return [];
  const f = input.demotion;
  if (f.value === null)
    return [
      notChecked(
        ID,
        `${ID}/demotion`,
        'demotion to slower nodes',
        absentReason(f, 'a kernel before 5.15 has no demotion'),
      ),
    ];
  if (f.value) return [pass(ID, `${ID}/demotion`, 'demotion to slower nodes is on', [evFact(f)])];
  const changes = demotionChanges(want);
  return [
    problem(ID, {
      id: `${ID}/demotion`,
      severity: 'warning',
      evidence: [evFact(f)],
      changes,
      ...commandsFor(changes),
      title: `demotion to slower nodes is off; the ${profile.name} profile wants it on`,
      why: want.reason,
    }),
  ];
}

export const memoryOnlyNodes: Rule = {
  id: ID,
  number: 17,
  title: 'memory-only (CPU-less) nodes and who is nearest',
  check(input, profile): Finding[] {
    const t = input.topology;
    const only = t.nodes.filter((n) => n.cpus.length === 0 && (n.memTotalBytes ?? 0) > 0);
    if (only.length === 0) return [pass(ID, ID, 'every node with memory has CPUs')];
    return [
      ...demotion(input, profile),
      ...only.map((n) => {
        const near = nearestCpuNodes(t, n);
        const cpuNode = near[0] ?? 0;
        if (wanted(profile, 'demotion') !== null)
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
            'or as a slower tier (hot pages promoted, cold pages demoted, 5.18+): numakit apply --profile memory-tiering',
          ],
        });
      }),
    ];
  },
};
