// Per-node statistics for `numakit stat`: numastat counters, meminfo and huge page pools of
// every node directory, plus the page sizes needed to turn pages into bytes.
import { NumakitError } from '../model/errors.js';
import type { NodeStat } from '../model/stat.js';
import { readNodeHugepages } from '../sysfs/node_hugepages.js';
import { listNodeDirs, NODE_DIR } from '../sysfs/node_list.js';
import { readMeminfo, readNodeMeminfo } from '../sysfs/node_meminfo.js';
import { readNodeNumastat } from '../sysfs/node_numastat.js';
import { readNumaMaps } from '../sysfs/proc_numa_maps.js';
import type { SysRoot } from '../sysfs/root.js';

/**
 * The base page size. Node has no sysconf(_SC_PAGESIZE); the kernel states the page size of
 * every mapping in numa_maps, so this reads it from our own process (4 kB on x86, 4/16/64 kB
 * on arm64 and ppc64). 4096 when the root has no such file (a fixture without proc/self).
 */
export function readPageSize(root: SysRoot): number {
  const r = readNumaMaps(root, 'self');
  if (r.ok) for (const m of r.mappings) if (m.category !== 'huge' && m.pageKb !== null) return m.pageKb * 1024;
  return 4096;
}

/** Hugepagesize from /proc/meminfo in bytes (numastat's unit for HugePages_* counts), 2 MiB if absent. */
export function readDefaultHugePageSize(root: SysRoot): number {
  return readMeminfo(root)?.['Hugepagesize'] ?? 2 * 1024 * 1024;
}

/** Nodes, counters, meminfo and pools. Throws a one-line error when there are no nodes. */
export function readNodeStat(root: SysRoot, opts: { meminfo?: boolean } = {}): NodeStat {
  const nodes = listNodeDirs(root);
  if (nodes.length === 0) throw new NumakitError(`${root.label === '/' ? '' : `${root.label}: `}no ${NODE_DIR}/node* directories: sysfs not mounted or kernel without NUMA`);
  const numastat = nodes.map((n) => {
    const c = readNodeNumastat(root, n);
    if (c === null) throw new NumakitError(`cannot read ${NODE_DIR}/node${n}/numastat`);
    return c;
  });
  const wantMem = opts.meminfo !== false;
  return {
    nodes,
    numastat,
    meminfo: nodes.map((n) => (wantMem ? readNodeMeminfo(root, n) : null)),
    huge: nodes.map((n) => {
      if (!wantMem) return null;
      const pools = readNodeHugepages(root, n);
      if (pools.length === 0) return null;
      const sum = (f: (p: (typeof pools)[number]) => number) => pools.reduce((a, p) => a + f(p) * p.sizeKb * 1024, 0);
      return { totalBytes: sum((p) => p.total), freeBytes: sum((p) => p.free), surplusBytes: sum((p) => p.surplus) };
    }),
    pageSize: readPageSize(root),
    defaultHugePageSize: readDefaultHugePageSize(root),
  };
}
