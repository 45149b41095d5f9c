// The node sets a process may be placed on: for the smallest size k whose CPUs can hold its
// CPU need (less NEED_SLACK), each CPU node with its k-1 nearest CPU nodes (SLIT distance, then id), plus the
// nodes it runs on now. Memory-only nodes (no CPUs) are never a target: threads cannot run there.
import type { NodeView } from './types.js';

/**
 * CPUs a process may need beyond a set's CPUs and still be placed there: CPU use measured over a
 * short window is noisy (a JIT or GC burst), and splitting a process over two nodes costs more
 * locality than sharing a CPU briefly. Memory then lands on one node, where its threads run.
 */
export const NEED_SLACK = 0.5;

export function distance(from: NodeView, to: number): number {
  return from.distances[String(to)] ?? (from.id === to ? 10 : 20);
}

function nearest(from: NodeView, pool: readonly NodeView[], k: number): NodeView[] {
  return [...pool]
    .sort(
      (a, b) =>
        distance(from, a.id) - distance(from, b.id) || (a.id === from.id ? -1 : b.id === from.id ? 1 : a.id - b.id),
    )
    .slice(0, k);
}

const key = (set: readonly NodeView[]) =>
  set
    .map((n) => n.id)
    .sort((a, b) => a - b)
    .join(',');

/**
 * Candidate sets. `usable` are the CPU nodes the process may run on; `need` its CPU need;
 * `runNodes` where it runs now (kept as a candidate when all of them are usable).
 */
export function candidateSets(usable: readonly NodeView[], need: number, runNodes: readonly number[]): NodeView[][] {
  if (usable.length === 0) return [];
  const byCpus = [...usable].sort((a, b) => b.cpus.length - a.cpus.length);
  let k = 1;
  while (k < usable.length && byCpus.slice(0, k).reduce((s, n) => s + n.cpus.length, 0) < need - NEED_SLACK) k++;
  const sets = new Map<string, NodeView[]>();
  for (const n of usable) {
    const set = nearest(n, usable, k).sort((a, b) => a.id - b.id);
    sets.set(key(set), set);
  }
  const run = usable.filter((n) => runNodes.includes(n.id));
  if (run.length === runNodes.length && run.length > 0) sets.set(key(run), run);
  return [...sets.values()];
}
