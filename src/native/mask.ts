// Kernel bitmasks (cpu_set_t, nodemask) as arrays of unsigned long, sized by the caller:
// never a fixed 64 bits, since nr_cpu_ids and nr_node_ids vary by machine.

/** unsigned long is 64 bits on every architecture numakit binds (x86_64, aarch64). */
export const BITS_PER_LONG = 64;

/** Number of unsigned longs needed to hold `nbits` bits (at least one). */
export function longsFor(nbits: number): number {
  if (!Number.isInteger(nbits) || nbits < 0) throw new RangeError(`invalid mask size ${nbits}`);
  return Math.max(1, Math.ceil(nbits / BITS_PER_LONG));
}

/**
 * A mask of `nbits` bits with the given ids set; an id outside [0, nbits) is a RangeError, and
 * so is a size past MAX_MASK_BITS (no kernel call reads more; 2^31 bits would be 256 MiB).
 */
export function toMask(ids: Iterable<number>, nbits: number): BigUint64Array {
  if (nbits > MAX_MASK_BITS)
    throw new RangeError(`a mask of ${nbits} bits is larger than the kernel reads (${MAX_MASK_BITS})`);
  const mask = new BigUint64Array(longsFor(nbits));
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= nbits) {
      throw new RangeError(`id ${id} does not fit a mask of ${nbits} bits`);
    }
    const word = Math.floor(id / BITS_PER_LONG);
    mask[word] = mask[word]! | (1n << BigInt(id % BITS_PER_LONG));
  }
  return mask;
}

/** The ids set in `mask`, ascending, looking at the first `nbits` bits (all by default). */
export function fromMask(mask: BigUint64Array, nbits = mask.length * BITS_PER_LONG): number[] {
  const ids: number[] = [];
  const limit = Math.min(nbits, mask.length * BITS_PER_LONG);
  for (let word = 0; word * BITS_PER_LONG < limit; word++) {
    let bits = mask[word]!;
    for (let bit = 0; bits !== 0n; bit++, bits >>= 1n) {
      const id = word * BITS_PER_LONG + bit;
      if (id >= limit) break;
      if (bits & 1n) ids.push(id);
    }
  }
  return ids;
}

/** Most bits a mask may have: the kernel reads at most one page of node mask (get_nodes()). */
export const MAX_MASK_BITS = 4096 * 8;

/**
 * Bits for a mask holding `ids`: at least `minBits` (nr_cpu_ids / nr_node_ids), more when an id
 * is larger, so that the kernel, not a RangeError here, rejects a CPU or node that does not exist.
 */
export function maskBitsFor(ids: readonly number[], minBits: number): number {
  let max = -1;
  for (const id of ids) if (id > max) max = id;
  return Math.max(minBits, Math.min(max + 1, MAX_MASK_BITS));
}
