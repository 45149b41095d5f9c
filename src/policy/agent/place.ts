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
// A process larger than a node (no CPU node has room for its memory: largerThanAnyNode) is
// placed as with --tune threads: none of its memory is copied, to no set (copying part of it
// would leave its threads as far from the rest), and its threads go only to a set that reaches
// the most of its memory where it is; when that set's CPUs cannot hold it this pass, it stays
// where it is (`no-room`) rather than going to a set holding less, from which the next pass
// that reads the best set idle would move it again. Once there, nothing beats where it is, and
// its threads are bound there (decide.ts) as a local process's are.
import { better, evaluate, largerThanAnyNode, reachInPlace, reachStep, type Scored } from './evaluate.js';
import { candidateSets } from './node_sets.js';
import { placeSplit } from './place_split.js';
import type { NodeView, Placement, PolicyOptions, ProcessView, SkipReason } from './types.js';

export { FIT_SLACK, FREE_RESERVE_BYTES, remapNode } from './evaluate.js';

export type PlaceResult =
  | {
      readonly ok: true;
      readonly placement: Placement;
      readonly spare: number;
      /** No node has room for its memory: the placement is the most its threads reach of it where it is. */
      readonly largerThanNode: boolean;
    }
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
  const large = opts.tune !== 'pages' && largerThanAnyNode(p, usable, nodes, opts);
  const o: PolicyOptions = large ? { ...opts, tune: 'threads' } : opts;
  let scored = sets.map((s) => evaluate(p, s, { all: nodes, runNodes }, o)).filter((s): s is Scored => s !== null);
  const split = placeSplit(p, { all: nodes, usable, runNodes }, sets[0]?.length ?? 0, o);
  if (split !== null) scored.push(split);
  if (large && sets.length > 0) {
    const most = bestInPlace(p, sets);
    scored = scored.filter((s) => reachStep(s.reach) >= reachStep(most.reach));
    if (scored.length === 0) return { ok: false, skip: 'no-room', reason: waitText(p, most.set, total, runNodes) };
  }
  if (scored.length === 0) {
    return {
      ok: false,
      skip: 'no-room',
      reason: `no node set has ${p.cpu.toFixed(1)} idle CPUs and room for its memory`,
    };
  }
  const best = scored.sort((a, b) => better(a, b, total, opts))[0]!;
  return { ok: true, placement: best.placement, spare: best.spare, largerThanNode: large };
}

/** The set whose threads reach the most of its memory where it is (then the fewest nodes, lowest ids). */
function bestInPlace(p: ProcessView, sets: readonly (readonly NodeView[])[]) {
  const ranked = sets.map((set) => ({ set, reach: reachInPlace(p, set) }));
  ranked.sort(
    (a, b) => reachStep(b.reach) - reachStep(a.reach) || a.set.length - b.set.length || a.set[0]!.id - b.set[0]!.id,
  );
  return ranked[0]!;
}

/** Why a process larger than a node is left where it is this pass. */
function waitText(p: ProcessView, set: readonly NodeView[], total: number, runNodes: readonly number[]): string {
  const ids = set.map((n) => n.id);
  const own = (id: number) => (p.windowSeconds > 0 ? (p.cpuNodes[String(id)] ?? 0) / p.windowSeconds : 0);
  const idle = set.reduce((s, n) => s + Math.min(n.cpus.length, n.idleCpus + own(n.id)), 0);
  const held = ids.reduce(
    (s, id) => s + (p.memory.kind === 'ok' ? (p.memory.nodes[String(id)]?.totalBytes ?? 0) : 0),
    0,
  );
  const where = `node ${ids.join(',')} (${Math.round((100 * held) / total)}% of its memory)`;
  const here = ids.length === runNodes.length && ids.every((id) => runNodes.includes(id));
  const cpus = `${p.cpu.toFixed(1)} CPUs, ${idle.toFixed(1)} idle there`;
  return here
    ? `larger than any node (${Math.round(total / 1048576)} MiB): nothing copied; its threads stay on ${where} (${cpus})`
    : `larger than any node (${Math.round(total / 1048576)} MiB): nothing copied; its threads go to ${where} once it has room for its ${cpus} now`;
}
