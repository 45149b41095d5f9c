// nodeN/meminfo ("Node 0 MemTotal:  16384000 kB") and /proc/meminfo ("MemTotal:  16384000 kB").
// Values are returned in bytes, except HugePages_* which are page counts as printed; a value
// beyond 2^53 bytes (VmallocTotal with 5-level paging) is kept exact aside (name_values.ts).
import { SysfsParseError } from '../model/errors.js';
import { type NameValues, setValue } from './name_values.js';
import { NODE_DIR } from './node_list.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export type Meminfo = NameValues;

function parseMeminfoLines(text: string, prefix: RegExp | null): Meminfo {
  const out: Meminfo = {};
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = prefix ? raw.replace(prefix, '') : raw;
    if (line.trim() === '') return;
    const m = /^\s*([A-Za-z0-9_()]+):\s+(\d{1,20})(?:\s+(kB))?\s*$/.exec(line);
    if (!m) throw new SysfsParseError('not a meminfo line', { line: i + 1, text: raw });
    setValue(out, m[1]!, m[2]!, m[3] === 'kB' ? 1024 : 1);
  });
  return out;
}

/** Parses a nodeN/meminfo text. Every line must carry the "Node N " prefix. */
export function parseNodeMeminfo(text: string): Meminfo {
  const lines = text.split('\n');
  lines.forEach((l, i) => {
    if (l.trim() !== '' && !/^Node \d+ /.test(l)) {
      throw new SysfsParseError('meminfo line without "Node N" prefix', { line: i + 1, text: l });
    }
  });
  return parseMeminfoLines(text, /^Node \d+ /);
}

/** Parses /proc/meminfo. */
export function parseMeminfo(text: string): Meminfo {
  return parseMeminfoLines(text, null);
}

export function readNodeMeminfo(root: SysRoot, node: number): Meminfo | null {
  return readParsed(root, `${NODE_DIR}/node${node}/meminfo`, parseNodeMeminfo);
}

export function readMeminfo(root: SysRoot): Meminfo | null {
  return readParsed(root, 'proc/meminfo', parseMeminfo);
}
