// /proc/uptime: "350735.47 234388.90": seconds since boot (CLOCK_BOOTTIME, the clock that
// /proc/PID/stat's starttime counts on), then the idle time of all CPUs.
import { SysfsParseError } from '../model/errors.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Seconds since boot. */
export function parseUptime(text: string): number {
  const m = /^\s*(\d{1,12}(?:\.\d{1,9})?)(?:\s|$)/.exec(text);
  if (m === null) throw new SysfsParseError('not an uptime line', { text: text.trim() });
  return Number(m[1]);
}

export function readUptime(root: SysRoot): number | null {
  return readParsed(root, 'proc/uptime', parseUptime);
}
