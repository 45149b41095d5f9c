// nodeN/vmstat: per-node VM counters ("nr_free_pages 123"). Since Linux 4.14 the numa_*
// counters also appear here; `stat --watch` reads nr_free_pages for free memory per node.
import { SysfsParseError } from '../model/errors.js';
import { NODE_DIR } from './node_list.js';
import { type NameValues, setValue } from './name_values.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Counter name -> value; one beyond 2^53 is kept exact aside (name_values.ts). */
export type NodeVmstat = NameValues;

export function parseNodeVmstat(text: string): NodeVmstat {
  const out: NodeVmstat = {};
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const m = /^\s*([A-Za-z0-9_]+)\s+(-?\d+)\s*$/.exec(line);
    if (!m) throw new SysfsParseError('not a "name value" vmstat line', { line: i + 1, text: line });
    setValue(out, m[1]!, m[2]!);
  });
  return out;
}

export function readNodeVmstat(root: SysRoot, node: number): NodeVmstat | null {
  return readParsed(root, `${NODE_DIR}/node${node}/vmstat`, parseNodeVmstat);
}
