// Per-node statistics for `numakit stat`: numastat counters, meminfo and huge page pools of
// every node directory, plus the page sizes needed to turn pages into bytes.
import { NumakitError } from '../model/errors.js';
import { withoutFootprint, type NodeStat } from '../model/stat.js';
import { readNodeHugepages } from '../sysfs/node_hugepages.js';
import { listNodeDirs, NODE_DIR } from '../sysfs/node_list.js';
import { readMeminfo, readNodeMeminfo } from '../sysfs/node_meminfo.js';
import { readNodeNumastat, type NodeNumastat } from '../sysfs/node_numastat.js';
import { readSelfFootprint } from '../sysfs/proc_numa_maps.js';
import { warn, type SysRoot } from '../sysfs/root.js';
import { readPageSize } from './page_size.js';

export { readPageSize };

/** Hugepagesize from /proc/meminfo in bytes (numastat's unit for HugePages_* counts), 2 MiB if absent. */
export function readDefaultHugePageSize(root: SysRoot): number {
  return readMeminfo(root)?.['Hugepagesize'] ?? 2 * 1024 * 1024;
}

/**
 * Each node's meminfo; with `withoutSelf` on the running system, less numakit's own pages there
 * (its numa_maps read right after: a Node process maps ~35 MB of its binary and has some MB of
 * heap, which numastat's own 1.6 MB would not add). A snapshot's meminfo is taken as it is.
 */
function meminfoOf(
  root: SysRoot,
  nodes: readonly number[],
  o: { wantMem: boolean; withoutSelf: boolean },
): (Record<string, number> | null)[] {
  if (!o.wantMem) return nodes.map(() => null);
  const raw = nodes.map((n) => readNodeMeminfo(root, n));
  const own = o.withoutSelf && root.isReal ? readSelfFootprint(root) : null;
  if (own === null) return raw;
  return raw.map((m, i) => {
    const fp = own.get(nodes[i]!);
    return m === null || fp === undefined ? m : withoutFootprint(m, fp);
  });
}

/**
 * Nodes, counters, meminfo and pools. A node whose numastat is absent or unusable (an empty
 * nodeN directory, a corrupt file) is left out with a warning; no node at all is a one-line error.
 */
export function readNodeStat(root: SysRoot, opts: { meminfo?: boolean; withoutSelf?: boolean } = {}): NodeStat {
  const dirs = listNodeDirs(root);
  const where = root.label === '/' ? '' : `${root.label}: `;
  if (dirs.length === 0)
    throw new NumakitError(`${where}no ${NODE_DIR}/node* directories: sysfs not mounted or kernel without NUMA`);
  const counted = dirs.map((n) => [n, readNodeNumastat(root, n)] as const);
  for (const [n, c] of counted) {
    if (c === null)
      warn(root, {
        path: `${NODE_DIR}/node${n}/numastat`,
        line: null,
        problem: `no usable counters: node ${n} left out of the tables`,
      });
  }
  const kept = counted.filter((x): x is readonly [number, NodeNumastat] => x[1] !== null);
  if (kept.length === 0) throw new NumakitError(`${where}no node has a readable ${NODE_DIR}/nodeN/numastat`);
  const nodes = kept.map(([n]) => n);
  const numastat = kept.map(([, c]) => c);
  const wantMem = opts.meminfo !== false;
  return {
    nodes,
    numastat,
    meminfo: meminfoOf(root, nodes, { wantMem, withoutSelf: opts.withoutSelf === true }),
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
