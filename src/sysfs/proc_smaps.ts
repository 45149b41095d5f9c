// /proc/PID/smaps: per mapping, "start-end perms offset dev inode [name]" then "Key: N kB" lines.
// The bench reads the mapping holding its buffer to say how much of it is in huge pages.
import { SysfsParseError } from '../model/errors.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface SmapsMapping {
  readonly start: bigint;
  readonly end: bigint;
  /** "Key: N kB" fields in kB (Rss, AnonHugePages ...). */
  readonly kb: Readonly<Record<string, number>>;
}

/** The mapping that holds `addr`, or null when none does. */
export function parseSmapsMapping(text: string, addr: bigint): SmapsMapping | null {
  let cur: { start: bigint; end: bigint; kb: Record<string, number> } | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const head = /^([0-9a-f]{1,16})-([0-9a-f]{1,16})\s/.exec(line);
    if (head !== null) {
      if (cur !== null) return cur;
      const start = BigInt(`0x${head[1]}`);
      const end = BigInt(`0x${head[2]}`);
      if (addr >= start && addr < end) cur = { start, end, kb: {} };
      continue;
    }
    if (cur === null || line.trim() === '') continue;
    const field = /^(\w+):\s+(\d{1,15}) kB$/.exec(line);
    if (field !== null) cur.kb[field[1]!] = Number(field[2]);
    else if (!/^\w+:/.test(line)) throw new SysfsParseError('not a smaps line', { line: i + 1, text: line });
  }
  return cur;
}

export function readSmapsMapping(root: SysRoot, pid: number | 'self', addr: bigint): SmapsMapping | null {
  return readParsed(root, `proc/${pid}/smaps`, (t) => parseSmapsMapping(t, addr));
}
