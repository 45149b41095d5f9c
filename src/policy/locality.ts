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
