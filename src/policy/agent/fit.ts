// The candidates of one pass placed as one whole fit, as numad fits processes into nodes. The
// CPU a candidate uses is load on the node it runs on only as long as it stays there: several
// busy, unbound processes, each running on another's memory node, would otherwise make every
// memory node read busy, and each one's memory would be copied to where it runs instead of its
// threads going to its memory. So before any is placed, every candidate that may move has its
// CPU freed from the nodes it runs on; then they are placed one by one, largest first (numad's
// magnitude: CPU x memory), each placement charging its CPU to its target nodes (a process left
// where it is: back to the nodes it runs on) before the next is placed.
// A process that stays is part of the load the others fit around: one already local (no
// thrash) or with a memory policy someone set stays unfreed and is decided first; and when a
// process freed in a round stays after all (low gain, no room, the budget), the fit runs again
// with it counted where it runs, until every freed process moved. Memory is not freed in
// advance: threads go to the memory first, and a candidate's memory leaves its nodes only when
// its move is decided (decide.ts, afterMove). Pure.
import { locality } from '../locality.js';
import { memoryPin } from './candidates.js';
import type { Decision, NodeView, PolicyOptions, ProcessView } from './types.js';

/** CPUs (over the window) of `p` on node `n`. */
export const ownCpu = (p: ProcessView, n: number) =>
  p.windowSeconds > 0 ? (p.cpuNodes[String(n)] ?? 0) / p.windowSeconds : 0;

/** Already local (LOCAL_ENOUGH, decide.ts) or pinned: stays, the others fit around it. */
export function staysPut(p: ProcessView, opts: PolicyOptions, localEnough: number): boolean {
  if (opts.tune === 'pages') return true; // threads never move: their CPU stays where it is
  return memoryPin(p, opts) !== null || (locality(p) ?? 0) >= localEnough;
}

/** numad's order: CPU x memory, largest first; then most remote memory, then lowest pid. */
export function fitOrder(
  ps: readonly ProcessView[],
  stays: ReadonlySet<ProcessView>,
  remote: (p: ProcessView) => number,
) {
  const size = (p: ProcessView) => p.cpu * (p.memory.kind === 'ok' ? p.memory.totalBytes : p.rssBytes);
  return [...ps].sort(
    (a, b) =>
      Number(stays.has(b)) - Number(stays.has(a)) ||
      size(b) - size(a) ||
      remote(b) - remote(a) ||
      b.rssBytes - a.rssBytes ||
      a.pid - b.pid,
  );
}

/** The machine with the CPU of every candidate not in `stays` freed from the nodes it runs on. */
export function freeMovers(
  nodes: readonly NodeView[],
  ps: readonly ProcessView[],
  stays: ReadonlySet<ProcessView>,
): NodeView[] {
  return nodes.map((n) => {
    const freed = ps.reduce((s, p) => s + (stays.has(p) ? 0 : ownCpu(p, n.id)), 0);
    return freed > 0 ? { ...n, idleCpus: Math.min(n.cpus.length, n.idleCpus + freed) } : n;
  });
}

/**
 * The machine as `p` sees it: its own CPU counted busy again where it runs (the policy adds a
 * process's own use back as room where it runs: evaluate.ts, afterMove), when it was freed.
 */
export function viewFor(nodes: readonly NodeView[], p: ProcessView, freed: boolean): NodeView[] {
  if (!freed) return [...nodes];
  return nodes.map((n) => {
    const own = ownCpu(p, n.id);
    return own > 0 ? { ...n, idleCpus: n.idleCpus - own } : n;
  });
}

/** True when the decision leaves its threads where they run (a skip, or memory moved to them). */
export function threadsStay(d: Decision): boolean {
  return d.kind === 'skip' || d.placement.cpus === null;
}

/**
 * The other freed candidates whose CPU on the target nodes this placement counted as room
 * (they are placed elsewhere, or beside it, in the same fit): for the decision log.
 */
export function fitNote(
  p: ProcessView,
  targets: readonly number[],
  ps: readonly ProcessView[],
  stays: ReadonlySet<ProcessView>,
): string {
  const others = ps.filter((q) => q !== p && !stays.has(q) && targets.some((n) => ownCpu(q, n) >= 0.05));
  if (others.length === 0) return '';
  const who = others.map((q) => `${q.comm} (${q.pid})`).join(', ');
  return `; whole fit: the CPU of ${who} on node ${targets.join(',')} counted where this pass places ${others.length === 1 ? 'it' : 'them'}`;
}

/**
 * When memory is to be copied instead of its threads going to it: how much idle CPU the CPU
 * nodes holding that memory had for it (what made them not fit), for the decision log.
 */
export function copyNote(p: ProcessView, from: readonly number[], nodes: readonly NodeView[]): string {
  const held = nodes.filter((n) => from.includes(n.id) && n.cpus.length > 0);
  if (held.length === 0) return '';
  const idle = held.map((n) => `${Math.min(n.cpus.length, n.idleCpus + ownCpu(p, n.id)).toFixed(2)}`).join(', ');
  return `; node ${held.map((n) => n.id).join(',')}, holding what is copied, had ${idle} idle CPUs for its ${p.cpu.toFixed(2)}`;
}
