// Where one process should be: the node set that maximises its (distance-weighted) locality
// given its CPU need, its memory per node, each node's idle CPU and free memory. Pure.
//
//   --tune threads  threads go to the memory: no bytes move; locality after = memory already there
//   --tune pages    memory goes to the threads: the set is where it runs now
//   --tune both     any set; memory from other CPU nodes is moved there
// Memory on memory-only nodes is never moved (it was put there on purpose: tiering, demotion);
// it counts as remote, weighted by its distance to the set, so a set near it wins a tie.
// Order of preference: best distance-weighted reach, then least memory to move (in 5% steps),
// then the strategy: balance = most spare CPU, consolidate = least spare CPU that still fits,
// then the nodes it runs on now.
import { locality } from '../locality.js';
import { candidateSets, NEED_SLACK, setDistance } from './node_sets.js';
import type { NodeView, Placement, PolicyOptions, ProcessView, SkipReason } from './types.js';

/** Free memory a target node keeps after a migration (bytes), so it is not pushed into reclaim. */
export const FREE_RESERVE_BYTES = 64 * 1024 * 1024;

export type PlaceResult = { readonly ok: true; readonly placement: Placement; readonly spare: number } | { readonly ok: false; readonly skip: SkipReason; readonly reason: string };

interface Scored {
  readonly set: readonly NodeView[];
  readonly placement: Placement;
  readonly reach: number;
  readonly spare: number;
  /** The set is exactly where it runs now. */
  readonly here: boolean;
}

const memOn = (p: ProcessView, n: number) => (p.memory.kind === 'ok' ? (p.memory.nodes[String(n)]?.totalBytes ?? 0) : 0);

function memoryNodes(p: ProcessView): number[] {
  return p.memory.kind === 'ok' ? Object.keys(p.memory.nodes).map(Number).filter((n) => memOn(p, n) > 0) : [];
}

function evaluate(p: ProcessView, set: readonly NodeView[], ctx: { all: readonly NodeView[]; runNodes: readonly number[] }, opts: PolicyOptions): Scored | null {
  const total = p.memory.kind === 'ok' ? p.memory.totalBytes : 0;
  const ids = new Set(set.map((n) => n.id));
  const cpuNode = new Set(ctx.all.filter((n) => n.cpus.length > 0).map((n) => n.id));
  const moves = opts.tune === 'threads' ? [] : memoryNodes(p).filter((n) => !ids.has(n) && cpuNode.has(n));
  const moveBytes = moves.reduce((s, n) => s + memOn(p, n), 0);
  const free = set.reduce((s, n) => s + n.freeBytes, 0);
  if (moveBytes > 0 && free - moveBytes < FREE_RESERVE_BYTES * set.length) return null;
  const own = (n: NodeView) => (p.windowSeconds > 0 ? (p.cpuNodes[String(n.id)] ?? 0) / p.windowSeconds : 0);
  const avail = set.reduce((s, n) => s + Math.min(n.cpus.length, n.idleCpus + own(n)), 0);
  const spare = avail - p.cpu;
  if (spare < -NEED_SLACK) return null;
  let local = 0;
  let reach = 0;
  for (const n of memoryNodes(p)) {
    const bytes = memOn(p, n);
    const after = ids.has(n) || moves.includes(n);
    if (after) local += bytes;
    reach += (bytes * 10) / (after ? 10 : setDistance(set, n));
  }
  const cpus = opts.tune === 'pages' ? null : set.flatMap((n) => n.cpus).filter((c) => p.cpusPermitted.includes(c)).sort((a, b) => a - b);
  const placement: Placement = {
    nodes: [...ids].sort((a, b) => a - b), cpus, moveFrom: moves.sort((a, b) => a - b), moveBytes,
    localityNow: locality(p) ?? 0, localityAfter: total > 0 ? local / total : 0,
  };
  const here = ids.size === ctx.runNodes.length && ctx.runNodes.every((n) => ids.has(n));
  return { set, placement, reach: total > 0 ? reach / total : 0, spare, here };
}

const bucket = (x: number, step: number) => Math.round(x / step);

function better(a: Scored, b: Scored, total: number, opts: PolicyOptions): number {
  const reach = bucket(b.reach, 0.02) - bucket(a.reach, 0.02);
  if (reach !== 0) return reach;
  const move = bucket(a.placement.moveBytes / total, 0.05) - bucket(b.placement.moveBytes / total, 0.05);
  if (move !== 0) return move;
  const spare = opts.strategy === 'balance' ? b.spare - a.spare : a.spare - b.spare;
  if (Math.abs(spare) > 0.05) return spare;
  if (a.here !== b.here) return a.here ? -1 : 1; // where it runs now: no churn
  return a.placement.nodes.join(',').localeCompare(b.placement.nodes.join(','));
}

/** The CPU nodes the process may use: CPUs it is permitted, memory in its Mems_allowed. */
function usableNodes(p: ProcessView, nodes: readonly NodeView[]): NodeView[] {
  return nodes.filter((n) => n.cpus.some((c) => p.cpusPermitted.includes(c)) && (p.memsAllowed === null || p.memsAllowed.includes(n.id)));
}

export function place(p: ProcessView, nodes: readonly NodeView[], opts: PolicyOptions): PlaceResult {
  const total = p.memory.kind === 'ok' ? p.memory.totalBytes : 0;
  if (total === 0) return { ok: false, skip: 'no-memory', reason: 'no anonymous memory in numa_maps' };
  const run = Object.entries(p.cpuNodes).filter(([, s]) => s > 0).map(([n]) => Number(n));
  const runNodes = run.length > 0 ? run : [...p.lastNodes];
  const usable = usableNodes(p, nodes);
  const sets = opts.tune === 'pages' ? [usable.filter((n) => runNodes.includes(n.id))].filter((s) => s.length > 0) : candidateSets(usable, p.cpu, runNodes);
  const scored = sets.map((s) => evaluate(p, s, { all: nodes, runNodes }, opts)).filter((s): s is Scored => s !== null);
  if (scored.length === 0) {
    return { ok: false, skip: 'no-room', reason: `no node set has ${p.cpu.toFixed(1)} idle CPUs and room for its memory` };
  }
  const best = scored.sort((a, b) => better(a, b, total, opts))[0]!;
  return { ok: true, placement: best.placement, spare: best.spare };
}
