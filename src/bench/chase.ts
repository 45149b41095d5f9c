// The latency chase's cycle: one 4-byte link at the start of every 64-byte line of a region,
// the lines visited in one random cycle (Sattolo's algorithm), so that every load depends on
// the last and no stride prefetcher can guess the next line. The same seed gives the same cycle.

export const LINE = 64;

/** xorshift32: small, fast, and the same sequence everywhere. */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

/** A random cyclic permutation of 0..n-1 (Sattolo): next[i] is the line after line i. */
export function sattolo(n: number, seed = 0x9e3779b9): Uint32Array {
  const next = new Uint32Array(n);
  for (let i = 0; i < n; i++) next[i] = i;
  const rand = xorshift32(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = rand() % i;
    const t = next[i]!;
    next[i] = next[j]!;
    next[j] = t;
  }
  return next;
}

/**
 * Writes the cycle over `lines` lines from byte offset `base` of `buffer`: the word at each
 * line's start holds the byte offset of the next line. Returns the offset to start from.
 */
export function writeCycle(buffer: ArrayBufferLike, base: number, lines: number, seed?: number): number {
  if (base % LINE !== 0) throw new RangeError(`chase base ${base} is not 64-byte aligned`);
  const next = sattolo(lines, seed);
  const words = new Uint32Array(buffer, base, (lines * LINE) / 4);
  for (let i = 0; i < lines; i++) words[(i * LINE) / 4] = base + next[i]! * LINE;
  return base;
}
