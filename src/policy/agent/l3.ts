// Which CPUs of one node a process gets: on a node of several L3 groups (EPYC's CCX/CCD, a
// sub-NUMA cluster), a process placed on that one node whose CPU need fits one group gets that
// group's CPUs, so its threads share one L3 instead of bouncing cache lines across the node's
// L3s; a process that needs more than a group has, or a node of one L3, gets the whole node.
// The group: the one the process is already bound inside (when it still fits: no flip-flop from
// one window to the next), else the one with the most idle CPUs, then the lowest CPU. Its own
// CPU use counts as room in the group it runs in. Pure.
import type { NodeView, ProcessView } from './types.js';

/** The CPUs for `p` needing `need` CPUs on `node` (only those it may use), or null: the whole node. */
export function chooseL3(p: ProcessView, node: NodeView, o: { need: number; slack: number }): number[] | null {
  const { need, slack } = o;
  const groups = (node.l3 ?? [])
    .map((g) => ({ cpus: g.cpus.filter((c) => p.cpusPermitted.includes(c)), idle: g.idleCpus }))
    .filter((g) => g.cpus.length > 0);
  if (groups.length < 2) return null;
  const own = p.windowSeconds > 0 ? (p.cpuNodes[String(node.id)] ?? 0) / p.windowSeconds : 0;
  const inside = (g: { cpus: number[] }) =>
    p.cpusAllowed !== null && p.cpusAllowed.length > 0 && p.cpusAllowed.every((c) => g.cpus.includes(c));
  const room = (g: { cpus: number[]; idle: number }) => Math.min(g.cpus.length, g.idle + (inside(g) ? own : 0));
  const fits = groups.filter((g) => need <= room(g) + slack && need <= g.cpus.length);
  if (fits.length === 0) return null;
  fits.sort(
    (a, b) => Number(inside(b)) - Number(inside(a)) || room(b) - room(a) || (a.cpus[0] ?? 0) - (b.cpus[0] ?? 0),
  );
  return fits[0]!.cpus;
}
