// Where weighted interleave's weights live, for the changes that set them (policy) and the reader
// (sysfs): /sys/kernel/mm/mempolicy/weighted_interleave/nodeN, 1..255. Plain data.

export const WEIGHTED_INTERLEAVE_DIR = 'sys/kernel/mm/mempolicy/weighted_interleave';
export const MAX_INTERLEAVE_WEIGHT = 255;

/** Root-relative path of node N's weight (a SysfsChange target). */
export function interleaveWeightPath(node: number): string {
  return `${WEIGHTED_INTERLEAVE_DIR}/node${node}`;
}
