// /proc/PID/maps: one line per mapping, "start-end perms offset dev inode [path]" (proc(5)):
//   7f2c1a000000-7f2c1e000000 rw-p 00000000 00:00 0
//   55aa00000000-55aa00021000 r-xp 00000000 fd:01 1234  /usr/bin/node
// numa_maps names a mapping by its start only; the agent's mover needs the end too, to walk
// the pages of a mapping in bounded batches (move_pages takes page addresses).
// User-space addresses are below 2^47 on x86_64 and 2^48 on arm64, so they fit a JS number;
// the one kernel-space line ([vsyscall], ffffffffff600000) is left out.
import { SysfsParseError } from '../model/errors.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface Mapping {
  readonly start: number;
  readonly end: number;
  /** "rw-p" */
  readonly perms: string;
  /** File path, "[heap]", "[stack]", or "" for an anonymous mapping. */
  readonly path: string;
  /** Offset in the file of its first byte (0 for anonymous mappings). */
  readonly offset: number;
}

const LINE = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) \S+ \d+ *(.*)$/;

export function parseProcMaps(text: string): Mapping[] {
  const out: Mapping[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const m = LINE.exec(line);
    const start = m ? parseInt(m[1]!, 16) : NaN;
    const end = m ? parseInt(m[2]!, 16) : NaN;
    if (m && m[1]!.length >= 14 && !Number.isSafeInteger(end)) return; // [vsyscall] at ffffffffff600000: kernel space
    if (!m || !Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) {
      throw new SysfsParseError('not a maps line ("start-end perms offset dev inode [path]")', {
        line: i + 1,
        text: line,
      });
    }
    out.push({ start, end, perms: m[3]!, path: m[5]!.trim(), offset: parseInt(m[4]!, 16) });
  });
  return out;
}

/** Mappings of a process; null when it is gone (or its maps cannot be read or parsed). */
export function readProcMaps(root: SysRoot, pid: number | 'self'): Mapping[] | null {
  return readParsed(root, `proc/${pid}/maps`, parseProcMaps, { emptyIsValue: true });
}
