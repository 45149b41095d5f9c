// Page addresses for move_pages(2) without a BigInt per page: `void *pages[]` is an array of
// 64-bit words, filled here as two 32-bit halves (little-endian: x86_64 and arm64 Linux).
// User-space addresses fit a JS number (below 2^48).
const HALF = 4294967296;

export class PageAddresses {
  /** lo, hi, lo, hi ...: pass `words` where the kernel wants `void **`. */
  readonly words: Uint32Array;

  constructor(readonly capacity: number) {
    this.words = new Uint32Array(capacity * 2);
  }

  set(i: number, addr: number): void {
    this.words[2 * i] = addr % HALF;
    this.words[2 * i + 1] = Math.floor(addr / HALF);
  }

  get(i: number): number {
    return this.words[2 * i + 1]! * HALF + this.words[2 * i]!;
  }

  /** addrs[i] = start + i * step for i < count. */
  fill(start: number, step: number, count: number): void {
    for (let i = 0; i < count; i++) this.set(i, start + i * step);
  }
}
