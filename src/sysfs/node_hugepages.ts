// nodeN/hugepages/hugepages-<size>kB/{nr,free,surplus}_hugepages: one pool per page size.
import type { HugePagePool } from '../model/topology.js';
import { NODE_DIR } from './node_list.js';
import { parseAt, parseInteger } from './parse_util.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

function readCount(root: SysRoot, path: string): number {
  const text = readText(root, path);
  return text === null ? 0 : parseAt(path, text, parseInteger);
}

/** Pools sorted by page size; [] when the node has no hugepages directory. */
export function readNodeHugepages(root: SysRoot, node: number): HugePagePool[] {
  const dir = `${NODE_DIR}/node${node}/hugepages`;
  const pools: HugePagePool[] = [];
  for (const name of listDir(root, dir) ?? []) {
    const m = /^hugepages-(\d+)kB$/.exec(name);
    if (!m) continue;
    const base = `${dir}/${name}`;
    pools.push({
      sizeKb: Number(m[1]),
      total: readCount(root, `${base}/nr_hugepages`),
      free: readCount(root, `${base}/free_hugepages`),
      surplus: readCount(root, `${base}/surplus_hugepages`),
    });
  }
  return pools.sort((a, b) => a.sizeKb - b.sizeKb);
}
