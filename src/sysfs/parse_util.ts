// Small helpers shared by the parse* functions. Pure.
import { SysfsParseError } from '../model/errors.js';
import { cleanText, isSafeDecimal } from '../model/limits.js';

/**
 * Parses one integer (the whole trimmed text). A value a JS number cannot hold exactly
 * (beyond 2^53, e.g. a u64 -1 printed as 18446744073709551615) is refused, never rounded.
 */
export function parseInteger(text: string): number {
  const s = cleanText(text).trim();
  if (!/^-?\d+$/.test(s)) throw new SysfsParseError('not an integer', { text: s });
  if (!isSafeDecimal(s)) throw new SysfsParseError('integer beyond 2^53', { text: s });
  return Number(s);
}

/** An integer in [min, max]; outside it the file is corrupt (or from a kernel numakit does not know). */
export function integerIn(min: number, max: number): (text: string) => number {
  return (text) => {
    const v = parseInteger(text);
    if (v < min || v > max) throw new SysfsParseError(`not an integer in ${min}..${max}`, { text: String(v) });
    return v;
  };
}

/** A count, size or latency: a non-negative integer. */
export const parseCount = integerIn(0, Number.MAX_SAFE_INTEGER);

/** Runs a parser on a file's text; a parse error is re-attributed to the file path. */
export function parseAt<T>(path: string, text: string, parse: (t: string) => T): T {
  try {
    return parse(cleanText(text));
  } catch (e) {
    if (e instanceof SysfsParseError) throw e.at(path);
    throw e;
  }
}

/** "[madvise] never" style selector files: the bracketed word. */
export function parseBracketed(text: string): string {
  const m = /\[([^\]]+)\]/.exec(text);
  if (!m) throw new SysfsParseError('no [selected] value', { text: text.trim() });
  return m[1]!;
}
