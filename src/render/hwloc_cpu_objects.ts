// The CPU-side objects of `topo --xml` from hwloc's mask files (model/hwloc_io.ts HwlocCpu), by
// the rules of hwloc's look_sysfscpu: each object is made by the first CPU of its mask; a core
// from core_cpus (os_index its core_id); a cluster (a Group of subtype Cluster) and a die only
// when they hold more than one CPU and differ from the die/package; a package from
// package_cpus; caches from shared_cpu_map with their level, type, id (os_index), size, line
// size and associativity (size / line size / lines per tag / sets, unknown as 0). Pure.
import type { HwlocCpu } from '../model/hwloc_io.js';

export interface CpuSideObj {
  readonly type: string;
  readonly cpus: readonly number[];
  readonly attrs: Record<string, string | number>;
}

const same = (a: readonly number[] | null, b: readonly number[] | null) =>
  a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]);

const CACHE_TYPE = { Unified: 0, Data: 1, Instruction: 2 } as const;

/** hwloc_cache_type_by_depth_type: L1-L5, and instruction caches L1i-L3i. */
function cacheType(level: number, type: keyof typeof CACHE_TYPE): string | null {
  if (type === 'Instruction') return level >= 1 && level <= 3 ? `L${level}iCache` : null;
  return level >= 1 && level <= 5 ? `L${level}Cache` : null;
}

const idAttr = (id: number | null): Record<string, number> => (id === null || id < 0 ? {} : { os_index: id });

function cachesOf(c: HwlocCpu): CpuSideObj[] {
  const out: CpuSideObj[] = [];
  for (const k of c.caches) {
    const cpus = k.cpus.length === 0 ? (c.core ?? []) : k.cpus;
    if (cpus[0] !== c.id || k.level === null) continue;
    const type = cacheType(k.level, k.type);
    if (type === null) continue;
    const assoc =
      k.lineSize === 0 || k.linesPerTag === 0 || k.sets <= 1
        ? 0
        : Math.floor(Math.floor(Math.floor((k.sizeKb * 1024) / k.lineSize) / k.linesPerTag) / k.sets);
    out.push({
      type,
      cpus,
      attrs: {
        ...idAttr(k.id),
        cache_size: k.sizeKb * 1024,
        depth: k.level,
        cache_linesize: k.lineSize,
        cache_associativity: assoc,
        cache_type: CACHE_TYPE[k.type],
      },
    });
  }
  return out;
}

/** The objects hwloc makes of the CPUs' masks, CPU by CPU. */
export function hwlocCpuObjects(cpus: readonly HwlocCpu[]): CpuSideObj[] {
  const out: CpuSideObj[] = [];
  for (const c of cpus) {
    let notFirstOfCore = false;
    if (c.core !== null) {
      if (c.core[0] !== c.id) notFirstOfCore = true;
      else out.push({ type: 'Core', cpus: c.core, attrs: idAttr(c.coreId) });
    }
    let cluster = notFirstOfCore ? null : c.cluster;
    let notFirstOfCluster = notFirstOfCore;
    if (cluster !== null && (cluster.length === 1 || cluster[0] !== c.id)) {
      if (cluster.length > 1) notFirstOfCluster = true;
      cluster = null;
    }
    let die = notFirstOfCluster ? null : c.die;
    let notFirstOfDie = notFirstOfCluster;
    if (die !== null && (die.length === 1 || die[0] !== c.id)) {
      if (die.length > 1) notFirstOfDie = true;
      die = null;
    }
    if (same(cluster, die)) cluster = null;
    if (!notFirstOfDie && c.package !== null) {
      if (same(die, c.package)) die = null;
      if (same(cluster, c.package)) cluster = null;
      if (c.package[0] === c.id) out.push({ type: 'Package', cpus: c.package, attrs: idAttr(c.packageId) });
    }
    if (cluster !== null)
      out.push({
        type: 'Group',
        cpus: cluster,
        attrs: { ...idAttr(c.clusterId), subtype: 'Cluster', kind: 222, subkind: 0 },
      });
    if (die !== null) out.push({ type: 'Die', cpus: die, attrs: idAttr(c.dieId) });
    out.push({ type: 'PU', cpus: [c.id], attrs: { os_index: c.id } });
    out.push(...cachesOf(c));
  }
  return out;
}
