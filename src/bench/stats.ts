// Statistics for benchmark runs. Pure: the random source is passed in, so results repeat.

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function minOf(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : Math.min(...xs);
}

export function maxOf(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : Math.max(...xs);
}

/** Value at quantile q (0..1) of sorted xs, linear between neighbours. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function resample(xs: readonly number[], rand: () => number): number[] {
  return Array.from({ length: xs.length }, () => xs[Math.floor(rand() * xs.length)]!);
}

export interface RatioCI {
  /** median(b) / median(a). */
  readonly ratio: number;
  readonly low: number;
  readonly high: number;
}

/**
 * The ratio of medians b/a with a percentile bootstrap confidence interval: both samples are
 * resampled with replacement `resamples` times. NaN bounds when a sample is empty.
 */
export function bootstrapRatio(
  a: readonly number[],
  b: readonly number[],
  opts: { level?: number; resamples?: number; seed?: number } = {},
): RatioCI {
  const ratio = median(b) / median(a);
  if (a.length === 0 || b.length === 0) return { ratio, low: NaN, high: NaN };
  const rand = seededRandom(opts.seed ?? 1);
  const n = opts.resamples ?? 10000;
  const rs: number[] = [];
  for (let i = 0; i < n; i++) rs.push(median(resample(b, rand)) / median(resample(a, rand)));
  rs.sort((x, y) => x - y);
  const tail = (1 - (opts.level ?? 0.95)) / 2;
  return { ratio, low: quantile(rs, tail), high: quantile(rs, 1 - tail) };
}

/** Fisher-Yates shuffle with a given random source; returns a new array. */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
