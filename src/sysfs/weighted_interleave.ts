// Weighted interleave (Linux 6.9+): /sys/kernel/mm/mempolicy/weighted_interleave/nodeN holds the
// weight of node N (1..255) that MPOL_WEIGHTED_INTERLEAVE allocates by (all 1 until someone writes
// them; 6.16 can derive them from HMAT itself, its `auto` file).
// Documentation/ABI/testing/sysfs-kernel-mm-mempolicy-weighted-interleave. Absent before 6.9.
import { interleaveWeightPath, MAX_INTERLEAVE_WEIGHT, WEIGHTED_INTERLEAVE_DIR } from '../model/interleave_weights.js';
import { integerIn } from './parse_util.js';
import { listNumbered } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export { interleaveWeightPath, WEIGHTED_INTERLEAVE_DIR };

/** One weight: an integer in 1..255 (the kernel refuses anything else on write). */
export const parseInterleaveWeight = integerIn(1, MAX_INTERLEAVE_WEIGHT);

/** node -> weight for every nodeN file that parses; null when the kernel has no weighted interleave. */
export function readInterleaveWeights(root: SysRoot): Map<number, number> | null {
  const nodes = listNumbered(root, WEIGHTED_INTERLEAVE_DIR, 'node');
  if (nodes.length === 0) return null;
  const weights = new Map<number, number>();
  for (const n of nodes) {
    const w = readParsed(root, interleaveWeightPath(n), parseInterleaveWeight);
    if (w !== null) weights.set(n, w);
  }
  return weights;
}
