// nodeN/hugepages/hugepages-<size>kB/{nr,free,surplus}_hugepages: one pool per page size.
import type { HugePagePool } from '../model/topology.js';
import { NODE_DIR } from './node_list.js';
import { parseCount } from './parse_util.js';
import { listDir } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** Pools sorted by page size; [] when the node has no hugepages directory. A count that is
 * absent or unusable (negative, not a number) counts as 0, with a warning for the latter. */
export function readNodeHugepages(root: SysRoot, node: number): HugePagePool[] {
  const dir = `${NODE_DIR}/node${node}/hugepages`;
  const pools: HugePagePool[] = [];
  for (const name of listDir(root, dir) ?? []) {
    const m = /^hugepages-([1-9]\d{0,9})kB$/.exec(name);
    if (!m) continue;
    const base = `${dir}/${name}`;
    const count = (f: string) => readParsed(root, `${base}/${f}`, parseCount) ?? 0;
    pools.push({
      sizeKb: Number(m[1]),
      total: count('nr_hugepages'),
      free: count('free_hugepages'),
      surplus: count('surplus_hugepages'),
    });
  }
  return pools.sort((a, b) => a.sizeKb - b.sizeKb);
}
