// `apply --interleave-weights hmat|FILE`: the change set that sets weighted interleave's weights
// from the firmware's HMAT read bandwidth or from a `bench mem --json` result (its measured matrix).
import { readFileSync } from 'node:fs';
import type { BandwidthCell } from '../../model/bench.js';
import { NumakitError } from '../../model/errors.js';
import type { Change } from '../../model/change.js';
import type { SysRoot } from '../../sysfs/root.js';
import { reasonOf } from '../../runtime/named_file.js';

export interface WeightsSource {
  readonly name: string;
  readonly label: string;
  readonly header: string;
  readonly changes: Change[];
  readonly notes: string[];
}

function benchCells(file: string): BandwidthCell[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new NumakitError(`apply: --interleave-weights ${file}: cannot read it as JSON (${reasonOf(e)})`);
  }
  const d = doc as { kind?: unknown; bandwidth?: unknown };
  if (d?.kind !== 'bench-mem' || !Array.isArray(d.bandwidth))
    throw new NumakitError(
      `apply: --interleave-weights ${file}: not a numakit bench mem --json result (kind "bench-mem" with a bandwidth matrix)`,
    );
  return d.bandwidth as BandwidthCell[];
}

/** Reads the bandwidths (HMAT or the file), derives the weights, and words the changes. */
export async function interleaveWeightsSource(root: SysRoot, from: string): Promise<WeightsSource> {
  const { readInterleaveWeights } = await import('../../sysfs/weighted_interleave.js');
  const policy = await import('../../policy/tuning/interleave_weights.js');
  const current = readInterleaveWeights(root);
  if (current === null)
    throw new NumakitError(
      'apply: --interleave-weights: this kernel has no weighted interleave (Linux 6.9+; /sys/kernel/mm/mempolicy/weighted_interleave is absent)',
    );
  try {
    let bw: import('../../policy/tuning/interleave_weights.js').NodeBandwidth[];
    if (from === 'hmat') {
      const { discoverTopology } = await import('../../discover/topology.js');
      bw = policy.bandwidthFromHmat(discoverTopology(root, { devices: false, caches: false }));
    } else {
      bw = policy.bandwidthFromBench(benchCells(from));
    }
    const unknown = bw.filter((b) => !current.has(b.node)).map((b) => b.node);
    if (unknown.length > 0)
      throw new policy.WeightSourceError(`node ${unknown.join(', ')} has no weighted_interleave/nodeN file here`);
    const weights = policy.weightsFromBandwidth(bw);
    const source = from === 'hmat' ? 'HMAT read' : `measured (${from})`;
    const shown = [...weights.entries()].map(([n, w]) => `node ${n}: ${w}`).join(', ');
    return {
      name: 'interleave-weights',
      label: `weighted interleave weights from ${from === 'hmat' ? 'HMAT' : from}`,
      header: `weighted interleave weights from ${from === 'hmat' ? 'HMAT' : from} (${shown})`,
      changes: policy.weightChanges(weights, bw, source),
      notes: [],
    };
  } catch (e) {
    if (e instanceof policy.WeightSourceError) throw new NumakitError(`apply: --interleave-weights: ${e.message}`);
    throw e;
  }
}
