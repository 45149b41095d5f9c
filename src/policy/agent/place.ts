// Where one process should be: the node set that maximises its (distance-weighted) locality
// given its CPU need, its memory per node, each node's idle CPU and free memory. Pure.
//
//   --tune threads  threads go to the memory: no bytes move; locality after = memory already there
//   --tune pages    memory goes to the threads: the set is where it runs now
//   --tune both     any set; memory from other CPU nodes is moved there
// Memory on memory-only nodes is never moved (it was put there on purpose: tiering, demotion);
// it counts as remote, weighted by its distance to the set, so a set near it wins a tie.
// Locality and reach of a set are what its threads see on average (spread over the set's CPUs,
// memory where migrate_pages will put it), so one node that fits beats two that share the memory.
// Order of preference: best distance-weighted reach, then a set whose idle CPUs hold the process
// (within FIT_SLACK) over one it would overload, then least memory to move (in 5% steps),
// then the strategy: balance = most spare CPU, consolidate = least spare CPU that still fits,
// then the nodes it runs on now. With --granularity threads, a placement of its hot threads
// apart from its cold ones (place_split.ts) competes on the same terms.
import { better, evaluate, type Scored } from './evaluate.js';
import { candidateSets } from './node_sets.js';
import { placeSplit } from './place_split.js';
import type { NodeView, Placement, PolicyOptions, ProcessView, SkipReason } from './types.js';

export { FIT_SLACK, FREE_RESERVE_BYTES, remapNode } from './evaluate.js';

export type PlaceResult =
  | { readonly ok: true; readonly placement: Placement; readonly spare: number }
  | { readonly ok: false; readonly skip: SkipReason; readonly reason: string };

/** The CPU nodes the process may use: CPUs it is permitted, memory in its Mems_allowed. */
function usableNodes(p: ProcessView, nodes: readonly NodeView[]): NodeView[] {
  return nodes.filter(
    (n) => n.cpus.some((c) => p.cpusPermitted.includes(c)) && (p.memsAllowed === null || p.memsAllowed.includes(n.id)),
  );
}

export function place(p: ProcessView, nodes: readonly NodeView[], opts: PolicyOptions): PlaceResult {
  const total = p.memory.kind === 'ok' ? p.memory.totalBytes : 0;
  if (total === 0) return { ok: false, skip: 'no-memory', reason: 'no anonymous memory in numa_maps' };
  const run = Object.entries(p.cpuNodes)
    .filter(([, s]) => s > 0)
    .map(([n]) => Number(n));
  const runNodes = run.length > 0 ? run : [...p.lastNodes];
  const usable = usableNodes(p, nodes);
  const sets =
    opts.tune === 'pages'
      ? [usable.filter((n) => runNodes.includes(n.id))].filter((s) => s.length > 0)
      : candidateSets(usable, p.cpu, runNodes);
  const scored = sets.map((s) => evaluate(p, s, { all: nodes, runNodes }, opts)).filter((s): s is Scored => s !== null);
  const split = placeSplit(p, { all: nodes, usable, runNodes }, sets[0]?.length ?? 0, opts);
  if (split !== null) scored.push(split);
  if (scored.length === 0) {
    return {
      ok: false,
      skip: 'no-room',
      reason: `no node set has ${p.cpu.toFixed(1)} idle CPUs and room for its memory`,
    };
  }
  const best = scored.sort((a, b) => better(a, b, total, opts))[0]!;
  return { ok: true, placement: best.placement, spare: best.spare };
}
