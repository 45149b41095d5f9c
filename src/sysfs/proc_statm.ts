// /proc/PID/statm: one line of page counts, "size resident shared text lib data dt" (proc(5)).
// The agent's cheapest look at a process: its resident size, before any costlier read.
import { SysfsParseError } from '../model/errors.js';
import { isSafeDecimal } from '../model/limits.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Resident pages (field 2). */
export function parseStatmResident(text: string): number {
  const f = text.trim().split(/\s+/);
  if (f.length < 2 || !/^\d+$/.test(f[1]!) || !isSafeDecimal(f[1]!))
    throw new SysfsParseError('statm has no resident page count', { text: text.trim() });
  return Number(f[1]);
}

/** Resident pages of a process; null when it is gone. */
export function readStatmResident(root: SysRoot, pid: number): number | null {
  return readParsed(root, `proc/${pid}/statm`, parseStatmResident);
}
