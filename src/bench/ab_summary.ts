// Per-variant statistics of bench ab runs and the verdict against the first variant. Pure.
import type { AbRun, AbVariant, AbVariantSummary, Stat3 } from '../model/bench.js';
import { bootstrapRatio, maxOf, median, minOf } from './stats.js';
import { MIN_VERDICT_SAMPLES, type RatioInterval, ratioVerdict } from './verdict.js';

export interface SummaryOptions {
  /** The measure: the --metric (higher or lower is better) or wall time (lower). */
  readonly metric: { readonly better: 'higher' | 'lower' } | null;
  readonly seed?: number;
}

const stat3 = (xs: readonly number[]): Stat3 | null =>
  xs.length === 0 ? null : { median: median(xs), min: minOf(xs), max: maxOf(xs) };
const med = (xs: readonly number[]): number | null => (xs.length === 0 ? null : median(xs));

function sumCounter(r: AbRun, counter: string): number {
  return Object.values(r.numastat).reduce((s, node) => s + (node[counter] ?? 0), 0);
}

export function measureOf(r: AbRun, o: SummaryOptions): number | null {
  return o.metric === null ? r.wallS : r.metric;
}

/** "local is 1.31x [1.27, 1.36] faster than default", "no difference measured (...)" or "no verdict: ...". */
export function verdict(
  name: string,
  base: string,
  ci: RatioInterval,
  o: SummaryOptions,
  samples: { a: number; b: number } = { a: MIN_VERDICT_SAMPLES, b: MIN_VERDICT_SAMPLES },
): string {
  const [up, down] = o.metric === null ? ['faster', 'slower'] : ['better', 'worse'];
  return ratioVerdict(ci, samples, { subject: `${name} is`, up, down, than: ` than ${base}` });
}

export function summarize(
  variants: readonly AbVariant[],
  runs: readonly AbRun[],
  o: SummaryOptions,
): AbVariantSummary[] {
  const counted = (name: string) => runs.filter((r) => r.variant === name && !r.warmup && r.ok);
  const base = variants[0]!.name;
  const baseVals = counted(base).map((r) => measureOf(r, o)!);
  return variants.map((v, i) => {
    const ok = counted(v.name);
    const all = runs.filter((r) => r.variant === v.name && !r.warmup);
    const vals = ok.map((r) => measureOf(r, o)!);
    let ratio: AbVariantSummary['ratio'] = null;
    let text = i === 0 ? 'baseline' : 'no successful run to compare';
    if (i > 0 && vals.length > 0 && baseVals.length > 0) {
      // Oriented so that > 1 is better: metric v/base when higher is better, else base/v.
      const higher = o.metric?.better === 'higher';
      const ci = higher
        ? bootstrapRatio(baseVals, vals, { seed: o.seed })
        : bootstrapRatio(vals, baseVals, { seed: o.seed });
      ratio = { value: ci.ratio, low: ci.low, high: ci.high };
      text = verdict(v.name, base, ratio, o, { a: baseVals.length, b: vals.length });
    } else if (i === 0 && vals.length === 0) text = 'baseline: no successful run';
    return {
      variant: v.name,
      runs: all.length,
      failed: all.length - ok.length,
      measure: stat3(vals),
      wallS: stat3(ok.map((r) => r.wallS)),
      userS: med(ok.map((r) => r.userS)),
      systemS: med(ok.map((r) => r.systemS)),
      numaMiss: med(ok.map((r) => sumCounter(r, 'numa_miss'))),
      otherNode: med(ok.map((r) => sumCounter(r, 'other_node'))),
      minorFaults: med(ok.map((r) => r.minorFaults)),
      majorFaults: med(ok.map((r) => r.majorFaults)),
      ctxSwitches: med(ok.map((r) => r.voluntaryCtxSwitches + r.involuntaryCtxSwitches)),
      ratio,
      verdict: text,
    };
  });
}
