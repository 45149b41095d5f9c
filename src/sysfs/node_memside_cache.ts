// nodeN/memory_side_cache/indexM/{size,line_size,indexing}: the caches in front of a node's
// memory that firmware describes in the HMAT (Documentation/admin-guide/mm/numaperf.rst). hwloc
// makes each a MemCache object above the node; an index missing a file is not one.
import type { MemSideCache } from '../model/hwloc_io.js';
import { listNodeDirs, NODE_DIR } from './node_list.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

const num = (t: string | null) => (t === null || !/^\s*\d+/.test(t) ? null : Number(/\d+/.exec(t)![0]));

export function readMemSideCaches(root: SysRoot): Map<number, MemSideCache[]> {
  const out = new Map<number, MemSideCache[]>();
  for (const node of listNodeDirs(root)) {
    const dir = `${NODE_DIR}/node${node}/memory_side_cache`;
    const caches: MemSideCache[] = [];
    for (const name of listDir(root, dir) ?? []) {
      const m = /^index(\d+)$/.exec(name);
      if (!m) continue;
      const size = num(readText(root, `${dir}/${name}/size`));
      const lineSize = num(readText(root, `${dir}/${name}/line_size`));
      const indexing = num(readText(root, `${dir}/${name}/indexing`));
      if (size === null || lineSize === null || indexing === null) continue;
      caches.push({ depth: Number(m[1]), sizeBytes: size, lineSize, indexing });
    }
    if (caches.length > 0)
      out.set(
        node,
        caches.sort((a, b) => a.depth - b.depth),
      );
  }
  return out;
}
