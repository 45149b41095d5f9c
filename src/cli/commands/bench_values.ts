// Values of bench's options. Pure; each throws a UsageError naming the option.
import { parseDuration } from '../values.js';
import { UsageError } from '../../model/errors.js';

/** A duration in seconds: 0, 0.5, 2, or with a unit (500ms, 2s, 1m). */
export function seconds(v: string, what: string): number {
  return /^\s*0*(\.0*)?\s*$/.test(v) ? 0 : parseDuration(v, what) / 1000;
}

export function positiveInt(v: string, what: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`bench: ${what} '${v}': expected a whole number >= 1`);
  return n;
}
