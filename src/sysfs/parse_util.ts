// Small helpers shared by the parse* functions. Pure.
import { SysfsParseError } from '../model/errors.js';

/** Parses one integer (the whole trimmed text). */
export function parseInteger(text: string): number {
  const s = text.trim();
  if (!/^-?\d+$/.test(s)) throw new SysfsParseError('not an integer', { text: s });
  return Number(s);
}

/** Runs a parser on a file's text; a parse error is re-attributed to the file path. */
export function parseAt<T>(path: string, text: string, parse: (t: string) => T): T {
  try {
    return parse(text);
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
