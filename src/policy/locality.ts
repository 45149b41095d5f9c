// Locality of a process: the share of its memory that sits on the nodes where it spends its
// CPU time, weighted by that time. With CPU time t_n on node n (T = sum of t_n), memory m_n on
// node n (M = sum of m_n):
//     locality = sum over n of (t_n / T) * (m_n / M)          in [0, 1]
// 1 = all its memory is where it runs; 0 = none is. A process that used no CPU in the window
// is weighted by the nodes its threads last ran on, equally. null when it has no memory
// or no known CPU node. Pure: plain data in, numbers out; the agent reuses it.
//
// API:
//   runNodes(p)        -> node ids it ran on (CPU time > 0, else where its threads last ran)
//   locality(p)        -> number | null
//   remoteBytes(p)     -> its memory remote from where it runs, weighted by CPU time: total x (1 - locality)
//   rankByRemote(ps)   -> samples with locality and remote bytes, most remote memory first, then most
//                         memory, then lowest pid (the one rank order: stat, top, serve)
//   inRankOrder(ps, f) -> the same order, lazily, for samples whose CPU nodes are not read yet: f reads
//                         them only for the samples that can still rank before those already yielded
import type { ProcessSample } from '../model/stat.js';

export type LocalityInput = Pick<ProcessSample, 'memory' | 'cpuNodes' | 'lastNodes'>;
type Ranked = LocalityInput & { readonly pid: number };

function weights(p: LocalityInput): Map<number, number> {
  const w = new Map<number, number>();
  let total = 0;
  for (const [node, s] of Object.entries(p.cpuNodes)) {
    if (s > 0) {
      w.set(Number(node), s);
      total += s;
    }
  }
  if (total === 0) {
    for (const n of p.lastNodes) w.set(n, 1);
    total = p.lastNodes.length;
  }
  for (const [n, s] of w) w.set(n, s / total);
  return w;
}

export function runNodes(p: LocalityInput): number[] {
  return [...weights(p).keys()].sort((a, b) => a - b);
}

export function locality(p: LocalityInput): number | null {
  if (p.memory.kind !== 'ok' || p.memory.totalBytes === 0) return null;
  const w = weights(p);
  if (w.size === 0) return null;
  let sum = 0;
  for (const [n, wn] of w) sum += wn * ((p.memory.nodes[String(n)]?.totalBytes ?? 0) / p.memory.totalBytes);
  return sum;
}

/**
 * Its memory remote from where it runs, weighted like locality: total x (1 - locality). For a
 * process on one node, the bytes on other nodes; for one split between nodes, what its CPU time
 * finds remote (half its time on each of two nodes holding half its memory each: half its memory),
 * never 0 B next to a locality of 0.5 (counting only nodes it never ran on said that).
 */
export function remoteBytes(p: LocalityInput): number {
  const l = locality(p);
  return l === null || p.memory.kind !== 'ok' ? 0 : Math.round(p.memory.totalBytes * (1 - l));
}

const total = (p: LocalityInput) => (p.memory.kind === 'ok' ? p.memory.totalBytes : 0);

export interface RankedProcess<P extends LocalityInput> {
  readonly sample: P;
  readonly locality: number | null;
  readonly remoteBytes: number;
}

/** The rank order: most memory on nodes it does not run on first, then most memory, then lowest pid. */
export function byRemote<P extends Ranked>(a: RankedProcess<P>, b: RankedProcess<P>): number {
  return b.remoteBytes - a.remoteBytes || total(b.sample) - total(a.sample) || a.sample.pid - b.sample.pid;
}

/** A sample with its locality and remote bytes. */
export function ranked<P extends LocalityInput>(sample: P): RankedProcess<P> {
  return { sample, locality: locality(sample), remoteBytes: remoteBytes(sample) };
}

/** Samples with their locality, in the rank order (byRemote). */
export function rankByRemote<P extends Ranked>(samples: readonly P[]): RankedProcess<P>[] {
  return samples.map(ranked).sort(byRemote);
}

/** Where a sample ranks at best before its CPU nodes are known: all its memory remote (locality 0). */
function atBest<P extends Ranked>(sample: P): RankedProcess<P> {
  return { sample, locality: 0, remoteBytes: total(sample) };
}

/** A binary heap in the rank order (byRemote): the first-ranked on top. */
class RankHeap<P extends Ranked> {
  private readonly a: RankedProcess<P>[];

  /** A heap of `items` (taken over, not copied): built in linear time, no sort of them all. */
  constructor(items: RankedProcess<P>[] = []) {
    this.a = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i, items[i]!);
  }

  get top(): RankedProcess<P> | undefined {
    return this.a[0];
  }

  push(x: RankedProcess<P>): void {
    const a = this.a;
    let i = a.push(x) - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (byRemote(a[up]!, x) <= 0) break;
      a[i] = a[up]!;
      i = up;
    }
    a[i] = x;
  }

  pop(): RankedProcess<P> | undefined {
    const a = this.a;
    const first = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) this.down(0, last);
    return first;
  }

  /** Puts `x` at `i` or below, where it ranks. */
  private down(at: number, x: RankedProcess<P>): void {
    const a = this.a;
    let i = at;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const c = l + 1 < a.length && byRemote(a[l + 1]!, a[l]!) < 0 ? l + 1 : l;
      if (byRemote(x, a[c]!) <= 0) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = x;
  }
}

/**
 * Samples in the rank order (byRemote), lazily, when what locality needs of where a process ran
 * costs a read (each thread's stat): `complete` gives a sample its CPU nodes (the same memory),
 * null when the process is gone (left out). A process's remote memory is at most its memory, so
 * samples are completed most memory first, each only while it could still rank before the best
 * completed one not yet yielded: a caller that stops after the first K completes the K and those
 * with more memory than the K-th's remote memory, not every sample.
 */
export function* inRankOrder<P extends Ranked>(
  samples: readonly P[],
  complete: (sample: P) => P | null,
): Generator<RankedProcess<P>, void, undefined> {
  const todo = new RankHeap(samples.map(atBest));
  const done = new RankHeap<P>();
  for (;;) {
    for (let next = todo.top; next !== undefined && (done.top === undefined || byRemote(next, done.top) < 0); ) {
      todo.pop();
      const full = complete(next.sample);
      if (full !== null) done.push(ranked(full));
      next = todo.top;
    }
    const first = done.pop();
    if (first === undefined) return;
    yield first;
  }
}
