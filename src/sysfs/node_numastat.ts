// nodeN/numastat: the kernel's per-node allocation counters, one "name value" pair a line
// (numa_hit, numa_miss, numa_foreign, interleave_hit, local_node, other_node), in pages.
// See Documentation/admin-guide/numastat.rst. Order is kept: numastat prints file order.
import { SysfsParseError } from '../model/errors.js';
import { NODE_DIR } from './node_list.js';
import { parseAt } from './parse_util.js';
import { readText } from './read.js';
import type { SysRoot } from './root.js';

/** Counter name -> value (pages), in the order the kernel printed them. */
export type NodeNumastat = Record<string, number>;

export function parseNodeNumastat(text: string): NodeNumastat {
  const out: NodeNumastat = {};
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const m = /^\s*([a-z_]+)\s+(\d+)\s*$/.exec(line);
    if (!m) throw new SysfsParseError('not a "name value" numastat line', { line: i + 1, text: line });
    out[m[1]!] = Number(m[2]);
  });
  return out;
}

/** The counters of one node, or null when the file is absent (kernel without NUMA). */
export function readNodeNumastat(root: SysRoot, node: number): NodeNumastat | null {
  const path = `${NODE_DIR}/node${node}/numastat`;
  const text = readText(root, path);
  return text === null ? null : parseAt(path, text, parseNodeNumastat);
}
