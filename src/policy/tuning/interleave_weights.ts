// Weighted interleave's weights, chosen: each memory node's share of the pages in proportion to
// the bandwidth it gives, so that a bandwidth-bound buffer spread over DRAM and a slower (CXL-like)
// node keeps every node busy in step. The bandwidth of a node is what its best initiator gets:
// HMAT's access0 read bandwidth, or the best row of `bench mem`'s measured matrix. Weights are the
// smallest integers (1..255) whose shares lie within SHARE_TOLERANCE of the bandwidth shares.
// Pure; the changes are sysfs writes that apply journals, rollback undoes and --persist keeps.
import type { SysfsChange } from '../../model/change.js';
import type { BandwidthCell } from '../../model/bench.js';
import { interleaveWeightPath, MAX_INTERLEAVE_WEIGHT } from '../../model/interleave_weights.js';
import type { Topology } from '../../model/topology.js';

/** A node and the bandwidth its best initiator gets from it, MB/s. */
export interface NodeBandwidth {
  readonly node: number;
  readonly mbps: number;
}

/** Each node's share of the pages may differ from its share of the bandwidth by this much. */
export const SHARE_TOLERANCE = 0.01;

export class WeightSourceError extends Error {
  override name = 'WeightSourceError';
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function worstShareError(weights: readonly number[], mbps: readonly number[]): number {
  const wSum = weights.reduce((a, b) => a + b, 0);
  const bSum = mbps.reduce((a, b) => a + b, 0);
  return Math.max(...weights.map((w, i) => Math.abs(w / wSum - mbps[i]! / bSum)));
}

/**
 * Integer weights in proportion to `bw`: the slowest node gets k (k = 1, 2, ...) and the others
 * k times their ratio to it, rounded; the first k whose shares are all within SHARE_TOLERANCE wins
 * (else the closest one, the fastest node's weight held at 255), divided by the weights' common divisor.
 */
export function weightsFromBandwidth(bw: readonly NodeBandwidth[]): Map<number, number> {
  if (bw.length === 0) throw new WeightSourceError('no node with a bandwidth to weigh');
  const bad = bw.find((b) => !(b.mbps > 0));
  if (bad) throw new WeightSourceError(`node ${bad.node}: bandwidth ${bad.mbps} MB/s is not a positive figure`);
  const mbps = bw.map((b) => b.mbps);
  const min = Math.min(...mbps);
  let best: number[] = bw.map(() => 1);
  let bestError = worstShareError(best, mbps);
  for (let k = 1; k <= MAX_INTERLEAVE_WEIGHT; k++) {
    const w = mbps.map((m) => Math.min(MAX_INTERLEAVE_WEIGHT, Math.max(1, Math.round((k * m) / min))));
    const error = worstShareError(w, mbps);
    if (error < bestError) [best, bestError] = [w, error];
    // Beyond 255 the fastest node's weight saturates: a larger k only loses precision elsewhere.
    if (error <= SHARE_TOLERANCE || (k * Math.max(...mbps)) / min >= MAX_INTERLEAVE_WEIGHT) break;
  }
  const divisor = best.reduce(gcd);
  return new Map(bw.map((b, i) => [b.node, best[i]! / divisor]));
}

/** HMAT access0 read bandwidth of every node with memory; a memory node without one is an error. */
export function bandwidthFromHmat(topo: Topology): NodeBandwidth[] {
  const nodes = topo.nodes.filter((n) => n.hasMemory);
  const missing = nodes.filter((n) => n.access?.readBandwidthMBps == null).map((n) => n.id);
  if (nodes.length === 0 || missing.length === nodes.length)
    throw new WeightSourceError(
      'this machine has no HMAT bandwidth (nodeN/access0/initiators/read_bandwidth); measure with numakit bench mem --json and give that file',
    );
  if (missing.length > 0)
    throw new WeightSourceError(
      `HMAT gives no read bandwidth for node ${missing.join(', ')}; measure with numakit bench mem --json`,
    );
  return nodes.map((n) => ({ node: n.id, mbps: n.access!.readBandwidthMBps! }));
}

function cellMbps(c: BandwidthCell): number | null {
  const k = c.kernels.read ?? c.kernels.triad ?? c.kernels.copy ?? c.kernels.write;
  return k === undefined ? null : k.gbps.median * 1000;
}

/** Each memory node's best bandwidth over the CPU nodes of a `bench mem` matrix (median GB/s of read, else triad, copy, write). */
export function bandwidthFromBench(cells: readonly BandwidthCell[]): NodeBandwidth[] {
  const best = new Map<number, number>();
  for (const c of cells) {
    const m = cellMbps(c);
    if (m !== null && m > (best.get(c.memNode) ?? 0)) best.set(c.memNode, m);
  }
  if (best.size === 0)
    throw new WeightSourceError('the bench mem result has no bandwidth cells (run it without --no-bandwidth)');
  return [...best.entries()].sort((a, b) => a[0] - b[0]).map(([node, mbps]) => ({ node, mbps }));
}

/** The sysfs writes that set `weights`, each saying where its figure came from. */
export function weightChanges(
  weights: ReadonlyMap<number, number>,
  bw: readonly NodeBandwidth[],
  source: string,
): SysfsChange[] {
  const figures = bw.map((b) => `node ${b.node} ${Math.round(b.mbps)} MB/s`).join(', ');
  const reason = `weighted interleave in proportion to ${source} bandwidth (${figures})`;
  return [...weights.entries()].map(([node, w]) => ({
    kind: 'sysfs',
    target: interleaveWeightPath(node),
    value: String(w),
    reason,
  }));
}
