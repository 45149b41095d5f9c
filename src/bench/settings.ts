// The kernel settings and machine facts that move benchmark results, read once per run and
// recorded with it (THP, AutoNUMA, zone_reclaim_mode, the cpufreq governor, load average).
import type { BenchNode, BenchSettings } from '../model/bench.js';
import type { Topology } from '../model/topology.js';
import { lastLevelCache, readCpuCaches } from '../sysfs/cpu_cache.js';
import { readGovernors } from '../sysfs/cpufreq.js';
import { readLoadavg } from '../sysfs/proc_loadavg.js';
import { readText } from '../sysfs/read.js';
import type { SysRoot } from '../sysfs/root.js';

export function readCpuModel(root: SysRoot): string | null {
  const m = /^model name\s*:\s*(.+)$/m.exec(readText(root, 'proc/cpuinfo') ?? '');
  return m === null ? null : m[1]!.trim();
}

export function readBenchSettings(root: SysRoot, topo: Topology): Omit<BenchSettings, 'loadAverage'> {
  const k = topo.kernel;
  const governors = [
    ...new Set(
      readGovernors(
        root,
        topo.cpus.filter((c) => c.online).map((c) => c.id),
      ).values(),
    ),
  ].sort();
  return {
    kernel: k.kernelRelease.value,
    cpuModel: readCpuModel(root),
    hypervisor: k.hypervisor.value,
    thp: k.thpEnabled.value,
    thpDefrag: k.thpDefrag.value,
    numaBalancing: k.numaBalancing.value,
    zoneReclaimMode: k.zoneReclaimMode.value,
    governor: governors.length === 0 ? null : governors.join(', '),
  };
}

export function loadAverage(root: SysRoot): number[] | null {
  const l = readLoadavg(root);
  return l === null ? null : [...l];
}

/** Sum of the distinct last-level caches that `cpus` use; null when any is unknown. */
export function llcBytesOf(root: SysRoot, cpus: readonly number[]): number | null {
  const seen = new Set<string>();
  let total = 0;
  for (const cpu of cpus) {
    const llc = lastLevelCache(readCpuCaches(root, cpu));
    if (llc === null || llc.sizeBytes === null) return null;
    const key = `${llc.level}:${llc.cpus.join(',')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    total += llc.sizeBytes;
  }
  return total;
}

export function benchNodes(root: SysRoot, topo: Topology): BenchNode[] {
  return topo.nodes.map((n) => ({
    id: n.id,
    cpus: n.cpus,
    memTotalBytes: n.memTotalBytes,
    memFreeBytes: n.memFreeBytes,
    distances: Object.fromEntries(Object.entries(n.distances).map(([k, v]) => [k, v])),
    llcBytes: n.cpus.length === 0 ? null : llcBytesOf(root, n.cpus),
  }));
}
