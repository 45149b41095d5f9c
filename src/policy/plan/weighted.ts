// A bandwidth-bound instance on a tiered machine: bound to its node it streams at that node's
// bandwidth; weighted-interleaved over its node and the slower (memory-only) nodes nearest it,
// with weights in proportion to their bandwidth, every node streams its share at once and the
// sum is what it gets. When that sum is at least WEIGHTED_MIN_GAIN times the bound figure the
// plan spreads it (HMAT read bandwidth; the machine's weights are set once by
// `numakit apply --interleave-weights hmat`); else it stays bound, the arithmetic said either way.
import { weightsFromBandwidth } from '../tuning/interleave_weights.js';
import { num } from './machine.js';
import type { Derivation, MachineShare } from './types.js';

/** Below this gain the latency of the slower node's pages is not worth the bandwidth. */
export const WEIGHTED_MIN_GAIN = 1.1;

export interface WeightedSpread {
  /** The instance's node first, then its slower nodes. */
  readonly nodes: number[];
  /** The machine's weights (all memory nodes), as apply sets them. */
  readonly weights: ReadonlyMap<number, number>;
  readonly gain: number;
}

/**
 * Weighted interleave for the instance on `node`, or null (bound) with the reason in `d`. The
 * weights come from every memory node's bandwidth, since the kernel has one weight per node.
 */
export function weightedSpread(m: MachineShare, node: number, d: Derivation[]): WeightedSpread | null {
  const what = `memory of the instance on node ${node}`;
  const slower = m.slower[node] ?? [];
  if (slower.length === 0) {
    d.push({
      what,
      formula: `no memory-only node is nearest node ${node}: nothing slower to add bandwidth`,
      value: 'bound',
    });
    return null;
  }
  const missing = m.memoryNodes.filter((n) => m.readBandwidth[n] == null);
  if (missing.length > 0) {
    d.push({
      what,
      formula: `HMAT gives no read bandwidth for node ${missing.join(', ')}: no arithmetic to go by (measure with numakit bench mem, then apply --interleave-weights FILE and run -w by hand)`,
      value: 'bound',
    });
    return null;
  }
  const bw = (n: number) => m.readBandwidth[n]!;
  const nodes = [node, ...slower];
  const sum = nodes.reduce((a, n) => a + bw(n), 0);
  const gain = sum / bw(node);
  const arithmetic = `${nodes.map((n) => `${bw(n)}`).join(' + ')} = ${sum} MB/s over nodes ${nodes.join(',')} against ${bw(node)} MB/s bound: x${num(gain)}`;
  if (gain < WEIGHTED_MIN_GAIN) {
    d.push({ what, formula: `${arithmetic} < x${WEIGHTED_MIN_GAIN}`, value: 'bound' });
    return null;
  }
  const weights = weightsFromBandwidth(m.memoryNodes.map((n) => ({ node: n, mbps: bw(n) })));
  d.push({
    what,
    formula: `${arithmetic} >= x${WEIGHTED_MIN_GAIN}; weights ${nodes.map((n) => weights.get(n)).join(':')} in proportion to the bandwidth`,
    value: `weighted interleave ${nodes.join(',')}`,
  });
  return { nodes, weights, gain };
}
