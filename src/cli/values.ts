// Values of flags and config keys (agent, serve, bench, k8s): durations ("5s", "500ms", "2m", a
// number = seconds), sizes ("64M", "1G", "512k", a number = bytes, binary units), fractions ("10%"
// or 0.1), CPUs. Pure; each throws UsageError naming the flag or key.
import { UsageError } from '../model/errors.js';
import { MAX_WAIT_MS, MAX_WAIT_TEXT } from '../model/timer_limit.js';

// Sizes have one grammar for every flag and key, plan's included: model/size.ts.
export { formatSize, parseSize } from '../model/size.js';

const DURATION: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(v: string | number, what: string): number {
  const m = typeof v === 'number' ? ['', String(v), 's'] : /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(v);
  if (!m) throw new UsageError(`${what} '${v}': expected a duration such as 5s, 500ms or 2m`);
  const ms = Number(m[1]) * DURATION[m[2] ?? 's']!;
  if (!(ms > 0)) throw new UsageError(`${what} '${v}': must be more than 0`);
  if (ms > MAX_WAIT_MS) throw new UsageError(`${what} '${v}': at most ${MAX_WAIT_TEXT}`);
  return ms;
}

export function parseFraction(v: string | number, what: string): number {
  const pct = typeof v === 'string' && v.trim().endsWith('%');
  const n = Number(typeof v === 'string' ? v.trim().replace(/%$/, '') : v);
  const x = pct ? n / 100 : n;
  if (typeof v === 'string' && v.trim() === '') throw new UsageError(`${what}: empty`);
  if (!Number.isFinite(x) || x < 0 || x > 1)
    throw new UsageError(`${what} '${v}': expected a fraction 0..1 or a percentage such as 10%`);
  return x;
}

/** A fraction above 0 (a share of something: "50%", 0.5, 1). */
export function parseShare(v: string | number, what: string): number {
  const x = parseFraction(v, what);
  if (x === 0) throw new UsageError(`${what} '${v}': must be more than 0`);
  return x;
}

export function parseNonNegative(v: string | number, what: string): number {
  const n = typeof v === 'number' ? v : Number(v.trim() === '' ? NaN : v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${what} '${v}': expected a number >= 0`);
  return n;
}

export function parseRegex(v: string, what: string): RegExp {
  try {
    return new RegExp(v);
  } catch (e) {
    throw new UsageError(`${what} '${v}': not a regular expression (${(e as Error).message})`);
  }
}

export function parseChoice<T extends string>(v: string, choices: readonly T[], what: string): T {
  if (!(choices as readonly string[]).includes(v))
    throw new UsageError(`${what} '${v}': expected ${choices.join(' or ')}`);
  return v as T;
}

// The inverses, for defaults shown in --help: each parses back to the same value.

/** 30000 -> "30s", 500 -> "500ms", 120000 -> "2m": the largest unit that divides it. */
export function formatDuration(ms: number): string {
  for (const [unit, n] of Object.entries(DURATION).sort((a, b) => b[1] - a[1]))
    if (ms >= n && ms % n === 0) return `${ms / n}${unit}`;
  return `${ms}ms`;
}

/** 0.1 -> "10%". */
export function formatPercent(fraction: number): string {
  return `${Math.round(fraction * 1e6) / 1e4}%`;
}
