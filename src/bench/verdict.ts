// The one rule for a verdict on a ratio with its bootstrap interval (bench ab against its
// baseline, bench compare B against A): a verdict only when there are enough samples and the
// interval excludes 1, printed with enough digits that the printed interval excludes 1 too
// ("1.04x [1.00, 1.11] slower" reads as no difference; "[1.003, 1.11]" shows why it is one). Pure.

/** A ratio oriented so that > 1 is better, with its interval. */
export interface RatioInterval {
  readonly value: number;
  readonly low: number;
  readonly high: number;
}

/**
 * Samples each side needs for a verdict. A bootstrap of the median of n values can only pick
 * among those n values: with 3 or 4 each the interval is made of a few extreme pairs, not of the
 * median's spread, and it excludes 1 far more often than 5% of the time when nothing differs.
 * STREAM's rule for timed reps (bench mem --repeats) is the same 5.
 */
export const MIN_VERDICT_SAMPLES = 5;

/** Digits shown: 2, or up to 6 when fewer would print an interval touching 1. */
const MAX_DIGITS = 6;

export interface VerdictWords {
  /** "local is" / "B is". */
  readonly subject: string;
  /** "faster" / "better". */
  readonly up: string;
  /** "slower" / "worse". */
  readonly down: string;
  /** " than default", or "". */
  readonly than: string;
}

function triple(v: number, lo: number, hi: number, d: number): string {
  return `${v.toFixed(d)}x [${lo.toFixed(d)}, ${hi.toFixed(d)}]`;
}

/** The fewest digits (2..6) at which `edge` prints on its side of 1, or null. */
function digitsClearOf1(edge: number, above: boolean): number | null {
  for (let d = 2; d <= MAX_DIGITS; d++) {
    const shown = Number(edge.toFixed(d));
    if (above ? shown > 1 : shown < 1) return d;
  }
  return null;
}

/** "local is 1.31x [1.27, 1.36] faster than default", "no difference measured (...)" or "no verdict: ...". */
export function ratioVerdict(ci: RatioInterval, samples: { a: number; b: number }, w: VerdictWords): string {
  const fewest = Math.min(samples.a, samples.b);
  if (fewest < MIN_VERDICT_SAMPLES)
    return `no verdict: ${fewest} runs, a verdict needs at least ${MIN_VERDICT_SAMPLES} of each (${triple(ci.value, ci.low, ci.high, 2)})`;
  const none = `no difference measured (${triple(ci.value, ci.low, ci.high, 2)})`;
  if (!(ci.low > 1 || ci.high < 1)) return none;
  if (ci.low > 1) {
    const d = digitsClearOf1(ci.low, true);
    return d === null ? none : `${w.subject} ${triple(ci.value, ci.low, ci.high, d)} ${w.up}${w.than}`;
  }
  // Worse: shown as its inverse, so the interval's low edge is 1 / high.
  const d = digitsClearOf1(1 / ci.high, true);
  return d === null ? none : `${w.subject} ${triple(1 / ci.value, 1 / ci.high, 1 / ci.low, d)} ${w.down}${w.than}`;
}
