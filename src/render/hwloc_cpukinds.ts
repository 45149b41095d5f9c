// The CPU kinds of `topo --xml`, as hwloc's look_sysfscpukinds makes them: CPUs grouped by
// their cpufreq maximum (FrequencyMaxMHz), base frequency (FrequencyBaseMHz) and cpu_capacity
// (LinuxCapacity, whose rank is the kind's forced efficiency); maximum frequencies within 10% of
// each other among CPUs of one base frequency count as the lowest (turbo boost 3.0 bins). Kinds
// are written from the least efficient. Pure.
import type { CpuKindValues } from '../model/hwloc_io.js';

export interface CpuKind {
  readonly cpus: number[];
  readonly infos: [string, string][];
  readonly efficiency: number | null;
}

/** hwloc_linux_cpukinds_adjust_maxfreqs: one maximum per base frequency where they differ < 10%. */
function adjustMax(values: readonly CpuKindValues[]): CpuKindValues[] {
  if (values.some((v) => v.maxMHz !== null && v.baseMHz === null) || !values.some((v) => v.maxMHz !== null))
    return [...values];
  const out = [...values];
  for (const base of new Set(values.map((v) => v.baseMHz))) {
    if (base === null) continue;
    const maxes = values.filter((v) => v.baseMHz === base && v.maxMHz !== null).map((v) => v.maxMHz!);
    if (maxes.length === 0) continue;
    const lo = Math.min(...maxes);
    const hi = Math.max(...maxes);
    if (lo === hi || Math.fround(Math.fround(hi - lo) / lo) * 100 >= 10) continue;
    out.forEach((v, i) => {
      if (v.baseMHz === base && v.maxMHz !== null) out[i] = { ...v, maxMHz: lo };
    });
  }
  return out;
}

export function cpuKinds(values: readonly CpuKindValues[]): CpuKind[] {
  const adjusted = adjustMax(values);
  const capacities = [...new Set(adjusted.map((v) => v.capacity).filter((c): c is number => c !== null))].sort(
    (a, b) => a - b,
  );
  const kinds = new Map<string, { v: CpuKindValues; cpus: number[] }>();
  for (const v of adjusted) {
    if (v.maxMHz === null && v.baseMHz === null && v.capacity === null) continue;
    const k = `${v.maxMHz}/${v.baseMHz}/${v.capacity}`;
    (kinds.get(k) ?? kinds.set(k, { v, cpus: [] }).get(k)!).cpus.push(v.id);
  }
  const rank = (x: number | null) => x ?? -1;
  return [...kinds.values()]
    .sort(
      (a, b) =>
        rank(a.v.capacity) - rank(b.v.capacity) ||
        rank(a.v.baseMHz) - rank(b.v.baseMHz) ||
        rank(a.v.maxMHz) - rank(b.v.maxMHz),
    )
    .map(({ v, cpus }) => ({
      cpus,
      infos: [
        ...(v.maxMHz !== null ? [['FrequencyMaxMHz', String(v.maxMHz)] as [string, string]] : []),
        ...(v.baseMHz !== null ? [['FrequencyBaseMHz', String(v.baseMHz)] as [string, string]] : []),
        ...(v.capacity !== null ? [['LinuxCapacity', String(v.capacity)] as [string, string]] : []),
      ],
      efficiency: v.capacity === null ? null : capacities.indexOf(v.capacity),
    }));
}
