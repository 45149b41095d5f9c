// /proc/loadavg: "0.52 0.58 0.59 2/1195 12345": load averages over 1, 5 and 15 minutes.
import { SysfsParseError } from '../model/errors.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export type LoadAverage = readonly [number, number, number];

export function parseLoadavg(text: string): LoadAverage {
  const m = /^\s*(\d{1,9}(?:\.\d{1,6})?)\s+(\d{1,9}(?:\.\d{1,6})?)\s+(\d{1,9}(?:\.\d{1,6})?)(?:\s|$)/.exec(text);
  if (m === null) throw new SysfsParseError('not a load average line', { text: text.trim() });
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

export function readLoadavg(root: SysRoot): LoadAverage | null {
  return readParsed(root, 'proc/loadavg', parseLoadavg);
}

/**
 * The fifth field: the pid the kernel allocated last in the reader's pid namespace (a thread's
 * id too: threads take ids from the same counter). The agent's watch reads it to learn, with one
 * read, whether any process was created since its last look (proc(5)).
 */
export function parseLastPid(text: string): number {
  const m = /^\s*\S+\s+\S+\s+\S+\s+\d+\/\d+\s+(\d{1,10})\s*$/.exec(text.replace(/\0+$/, ''));
  if (m === null) throw new SysfsParseError('not a load average line with a last pid', { text: text.trim() });
  return Number(m[1]);
}
