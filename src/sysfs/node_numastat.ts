// nodeN/numastat: the kernel's per-node allocation counters, one "name value" pair a line
// (numa_hit, numa_miss, numa_foreign, interleave_hit, local_node, other_node), in pages.
// See Documentation/admin-guide/numastat.rst. Order is kept: numastat prints file order.
import { SysfsParseError } from '../model/errors.js';
import { NODE_DIR } from './node_list.js';
import { type NameValues, setValue } from './name_values.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Counter name -> value (pages), in the order the kernel printed them; one beyond 2^53 is kept exact aside (name_values.ts). */
export type NodeNumastat = NameValues;

export function parseNodeNumastat(text: string): NodeNumastat {
  const out: NodeNumastat = {};
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const m = /^\s*([a-z_]+)\s+(\d+)\s*$/.exec(line);
    if (!m) throw new SysfsParseError('not a "name value" numastat line', { line: i + 1, text: line });
    setValue(out, m[1]!, m[2]!);
  });
  return out;
}

/** The counters of one node, or null when the file is absent (kernel without NUMA). */
export function readNodeNumastat(root: SysRoot, node: number): NodeNumastat | null {
  return readParsed(root, `${NODE_DIR}/node${node}/numastat`, parseNodeNumastat);
}
