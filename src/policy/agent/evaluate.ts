// How good one node set is for one process: where its memory would be once moved (as the
// kernel's node_remap puts it), what its threads would see of it (locality and distance-weighted
// reach, threads spread over the set's CPUs), whether the set's idle CPUs hold it; and the
// order between two sets. Pure; place.ts and place_split.ts choose with it.
import { locality } from '../locality.js';
import { chooseL3 } from './l3.js';
import { distance, NEED_SLACK } from './node_sets.js';
import { rankThreads } from './threads.js';
import type { NodeView, Placement, PolicyOptions, ProcessView } from './types.js';

/** Free memory a target node keeps after a migration (bytes), so it is not pushed into reclaim. */
export const FREE_RESERVE_BYTES = 64 * 1024 * 1024;

/** CPUs a set may lack and still "fit" a process, when sets of equal locality are compared. */
export const FIT_SLACK = 0.25;

/**
 * What a set may lack and still fit this process: FIT_SLACK, plus the CPU of its helper threads
 * (those under half as busy as its busiest: GC, JIT, I/O), up to NEED_SLACK in all. Helpers run
 * in the gaps of its hot threads or briefly beside them; and on a loaded host (a guest's ticks
 * land in bursts) a node's idle CPU reads a little low. Without it a Node.js process (one hot
 * thread, 0.1-0.3 CPU of helpers) did not "fit" the idle one-CPU node holding its memory, while
 * the node it ran on did (its own use counts as room there), so all its memory was copied to
 * where it ran instead of its threads going to the memory.
 */
export function fitSlack(p: ProcessView): number {
  if (p.threadUse === undefined || p.windowSeconds <= 0) return FIT_SLACK;
  return Math.min(NEED_SLACK, FIT_SLACK + rankThreads(p.threadUse, p.windowSeconds).coldCpu);
}

export interface Scored {
  readonly set: readonly NodeView[];
  readonly placement: Placement;
  /** What its threads reach of its memory (1: all local), CPU-weighted; a split's: its hot threads'. */
  readonly reach: number;
  /** A split's: what its cold threads reach (the next criterion after reach); a whole placement's: its reach. */
  readonly coldReach?: number;
  readonly spare: number;
  /** CPUs the set may lack and still fit (FIT_SLACK when absent): fitSlack(). */
  readonly slack?: number;
  /** The set is exactly where it runs now. */
  readonly here: boolean;
}

export const memOn = (p: ProcessView, n: number) =>
  p.memory.kind === 'ok' ? (p.memory.nodes[String(n)]?.totalBytes ?? 0) : 0;

export function memoryNodes(p: ProcessView): number[] {
  return p.memory.kind === 'ok'
    ? Object.keys(p.memory.nodes)
        .map(Number)
        .filter((n) => memOn(p, n) > 0)
    : [];
}

/**
 * Where migrate_pages(2) puts the pages of source node `s`: the kernel keeps the relative
 * position (node_remap): the k-th node of `from` (ascending) goes to the (k mod |to|)-th of `to`.
 */
export function remapNode(s: number, from: readonly number[], to: readonly number[]): number {
  const f = [...from].sort((a, b) => a - b);
  const t = [...to].sort((a, b) => a - b);
  return t[f.indexOf(s) % t.length]!;
}

/** Memory per node after moving the nodes `moves` to the set `to`, as the kernel will place it. */
export function memoryAfter(p: ProcessView, moves: readonly number[], to: readonly number[]): Map<number, number> {
  const after = new Map<number, number>();
  for (const n of memoryNodes(p)) {
    const dest = moves.includes(n) ? remapNode(n, moves, to) : n;
    after.set(dest, (after.get(dest) ?? 0) + memOn(p, n));
  }
  return after;
}

export function evaluate(
  p: ProcessView,
  set: readonly NodeView[],
  ctx: { all: readonly NodeView[]; runNodes: readonly number[] },
  opts: PolicyOptions,
): Scored | null {
  const total = p.memory.kind === 'ok' ? p.memory.totalBytes : 0;
  const ids = new Set(set.map((n) => n.id));
  const cpuNode = new Set(ctx.all.filter((n) => n.cpus.length > 0).map((n) => n.id));
  // Memory on a memory-only node stays there (tiering put it there) unless --promote.
  let moves =
    opts.tune === 'threads' ? [] : memoryNodes(p).filter((n) => !ids.has(n) && (cpuNode.has(n) || opts.promote));
  const free = set.reduce((s, n) => s + n.freeBytes, 0);
  if (free - moves.reduce((s, n) => s + memOn(p, n), 0) < FREE_RESERVE_BYTES * set.length && moves.length > 0) {
    // Its memory does not fit the set: with --tune both its threads may still go there, to the
    // part of its memory the set holds, nothing copied.
    if (opts.tune !== 'both') return null;
    moves = [];
  }
  const moveBytes = moves.reduce((s, n) => s + memOn(p, n), 0);
  const own = (n: NodeView) => (p.windowSeconds > 0 ? (p.cpuNodes[String(n.id)] ?? 0) / p.windowSeconds : 0);
  const avail = set.reduce((s, n) => s + Math.min(n.cpus.length, n.idleCpus + own(n)), 0);
  const spare = avail - p.cpu;
  if (spare < -NEED_SLACK) return null;
  // One node: one of its L3 groups when the need fits one (l3.ts), else all its CPUs.
  const group =
    opts.tune === 'pages' || set.length !== 1 ? null : chooseL3(p, set[0]!, { need: p.cpu, slack: FIT_SLACK });
  const cpus =
    opts.tune === 'pages'
      ? null
      : (group ??
        set
          .flatMap((n) => n.cpus)
          .filter((c) => p.cpusPermitted.includes(c))
          .sort((a, b) => a - b));
  // Its threads spread over the set's nodes in proportion to the CPUs they may use there; each
  // thread reaches all of its memory. So locality and reach are what the threads see, on
  // average, once the memory sits where the kernel will put it: a set of two nodes with the
  // memory on one is half local, not "all local to the set".
  const { local, reach } = spread(p, set, memoryAfter(p, moves, [...ids]));
  const placement: Placement = {
    nodes: [...ids].sort((a, b) => a - b),
    cpus,
    moveFrom: moves.sort((a, b) => a - b),
    moveBytes,
    localityNow: locality(p) ?? 0,
    localityAfter: total > 0 ? local / total : 0,
  };
  const here = ids.size === ctx.runNodes.length && ctx.runNodes.every((n) => ids.has(n));
  return { set, placement, reach: total > 0 ? reach / total : 0, spare, slack: fitSlack(p), here };
}

/**
 * What threads spread over `set` (in proportion to the CPUs they may use on each node) see of
 * memory placed as `mem`: bytes local, and bytes weighted by 10 / distance (reach).
 */
function spread(p: ProcessView, set: readonly NodeView[], mem: ReadonlyMap<number, number>) {
  const usable = set.map((n) => ({ n, cpus: n.cpus.filter((c) => p.cpusPermitted.includes(c)).length }));
  const cpuTotal = usable.reduce((s, u) => s + u.cpus, 0);
  let local = 0;
  let reach = 0;
  for (const { n, cpus: c } of usable) {
    const share = cpuTotal > 0 ? c / cpuTotal : 1 / set.length;
    local += share * (mem.get(n.id) ?? 0);
    for (const [m, bytes] of mem) reach += (share * bytes * 10) / distance(n, m);
  }
  return { local, reach };
}

/** What threads on `set` reach of the memory where it is now (nothing moved), whatever the set's idle CPUs. */
export function reachInPlace(p: ProcessView, set: readonly NodeView[]): number {
  const total = p.memory.kind === 'ok' ? p.memory.totalBytes : 0;
  return total > 0 ? spread(p, set, memoryAfter(p, [], [])).reach / total : 0;
}

/**
 * No CPU node it may use has room for its memory: for each, its free memory plus what the
 * process already has there, less FREE_RESERVE_BYTES, is short of the memory that would move
 * (on CPU nodes; on memory-only nodes too with --promote). A process larger than a node.
 */
export function largerThanAnyNode(
  p: ProcessView,
  usable: readonly NodeView[],
  all: readonly NodeView[],
  opts: PolicyOptions,
): boolean {
  const cpuNode = new Set(all.filter((n) => n.cpus.length > 0).map((n) => n.id));
  const movable = memoryNodes(p)
    .filter((n) => cpuNode.has(n) || opts.promote)
    .reduce((s, n) => s + memOn(p, n), 0);
  return movable > 0 && usable.every((n) => n.freeBytes + memOn(p, n.id) - FREE_RESERVE_BYTES < movable);
}

const bucket = (x: number, step: number) => Math.round(x / step);

/** Reach as better() compares it (2% steps). */
export const reachStep = (reach: number) => bucket(reach, 0.02);

export function better(a: Scored, b: Scored, total: number, opts: PolicyOptions): number {
  const reach = reachStep(b.reach) - reachStep(a.reach);
  if (reach !== 0) return reach;
  // The same for the hot threads: then what the others reach (not splitting wins a tie).
  const cold = reachStep(b.coldReach ?? b.reach) - reachStep(a.coldReach ?? a.reach);
  if (cold !== 0) return cold;
  // Equally local: a set whose idle CPUs hold its need beats one it would overload (the slack
  // admits a noisy measurement and its helper threads, not a CPU shared with someone else's
  // busy thread).
  const fits = Number(b.spare >= -(b.slack ?? FIT_SLACK)) - Number(a.spare >= -(a.slack ?? FIT_SLACK));
  if (fits !== 0) return fits;
  const move = bucket(a.placement.moveBytes / total, 0.05) - bucket(b.placement.moveBytes / total, 0.05);
  if (move !== 0) return move;
  const spare = opts.strategy === 'balance' ? b.spare - a.spare : a.spare - b.spare;
  if (Math.abs(spare) > 0.05) return spare;
  if (a.here !== b.here) return a.here ? -1 : 1; // where it runs now: no churn
  return byCodePoint(a.placement.nodes.join(','), b.placement.nodes.join(','));
}

/**
 * Plain string order. Not localeCompare: its first call builds an ICU collator, hundreds of ms
 * of CPU on a slow guest (for node lists of digits and commas the two orders agree).
 */
function byCodePoint(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
