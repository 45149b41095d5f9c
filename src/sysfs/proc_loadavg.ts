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
