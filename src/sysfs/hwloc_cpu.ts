// The CPU topology files hwloc's Linux discovery builds its CPU side from (look_sysfscpu): for
// each online CPU with a topology directory, the masks of its core (core_cpus, or
// thread_siblings on kernels before 5.6), cluster (cluster_cpus), die (die_cpus) and package
// (package_cpus, or core_siblings), their ids, and each cache index's shared_cpu_map, level,
// type, id, size and geometry. Null when cpu0 has neither file naming (hwloc cannot read it).
import { parseCpuList, parseCpuMask } from '../model/cpuset.js';
import type { CpuKindValues, HwlocCacheIndex, HwlocCpu } from '../model/hwloc_io.js';
import { CPU_DIR, listCpuDirs } from './cpu_topology.js';
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

function mask(root: SysRoot, path: string): number[] | null {
  const t = readText(root, path);
  if (t === null) return null;
  try {
    return parseCpuMask(t);
  } catch {
    return null; // unparseable: as absent, hwloc skips the level
  }
}

/** hwloc reads numbers with atoi: leading digits ("32K" is 32), 0 for none. */
function uint(root: SysRoot, path: string): number | null {
  const t = readText(root, path);
  if (t === null) return null;
  const m = /^\s*(-?\d+)/.exec(t);
  return m ? Number(m[1]) : 0;
}

function readCaches(root: SysRoot, dir: string): HwlocCacheIndex[] {
  const out: HwlocCacheIndex[] = [];
  for (let j = 0; j < 10; j++) {
    const d = `${dir}/cache/index${j}`;
    const cpus = mask(root, `${d}/shared_cpu_map`);
    if (cpus === null) continue;
    const type = readText(root, `${d}/type`) ?? '';
    out.push({
      cpus,
      level: uint(root, `${d}/level`),
      type: type.startsWith('Data') ? 'Data' : type.startsWith('Instruction') ? 'Instruction' : 'Unified',
      id: uint(root, `${d}/id`),
      sizeKb: uint(root, `${d}/size`) ?? 0,
      lineSize: uint(root, `${d}/coherency_line_size`) ?? 0,
      sets: uint(root, `${d}/number_of_sets`) ?? 0,
      linesPerTag: uint(root, `${d}/physical_line_partition`) ?? 1,
    });
  }
  return out;
}

/** The online CPUs hwloc looks at: cpu/online (else each cpuN/online), with a topology dir. */
function onlineCpus(root: SysRoot): number[] {
  const list = readText(root, `${CPU_DIR}/online`);
  let online: Set<number> | null = null;
  try {
    online = list === null ? null : new Set(parseCpuList(list));
  } catch {
    online = null;
  }
  return listCpuDirs(root).filter((c) => {
    if (online !== null ? !online.has(c) : readText(root, `${CPU_DIR}/cpu${c}/online`)?.trim() === '0') return false;
    return listDir(root, `${CPU_DIR}/cpu${c}/topology`) !== null;
  });
}

export function readHwlocCpus(root: SysRoot): HwlocCpu[] | null {
  const cpus = onlineCpus(root);
  if (cpus.length === 0) return null;
  const t0 = `${CPU_DIR}/cpu${cpus[0]}/topology`;
  const fresh = readText(root, `${t0}/package_cpus`) !== null;
  if (!fresh && readText(root, `${t0}/core_siblings`) === null && readText(root, `${t0}/thread_siblings`) === null)
    return null;
  const inSet = new Set(cpus);
  const only = (m: number[] | null) => (m === null ? null : m.filter((c) => inSet.has(c)));
  return cpus.map((id) => {
    const dir = `${CPU_DIR}/cpu${id}`;
    const t = `${dir}/topology`;
    return {
      id,
      core: only(mask(root, `${t}/${fresh ? 'core_cpus' : 'thread_siblings'}`)),
      coreId: uint(root, `${t}/core_id`),
      cluster: only(mask(root, `${t}/cluster_cpus`)),
      clusterId: uint(root, `${t}/cluster_id`),
      die: only(mask(root, `${t}/die_cpus`)),
      dieId: uint(root, `${t}/die_id`),
      package: only(mask(root, `${t}/${fresh ? 'package_cpus' : 'core_siblings'}`)),
      packageId: uint(root, `${t}/physical_package_id`),
      caches: readCaches(root, dir).map((c) => ({ ...c, cpus: c.cpus.filter((x) => inSet.has(x)) })),
    };
  });
}

/** cpufreq's hardware maximum and intel_pstate's base frequency (kHz -> MHz), and cpu_capacity. */
export function readCpuKindValues(root: SysRoot): CpuKindValues[] {
  const mhz = (path: string) => {
    const v = uint(root, path);
    return v === null || v <= 0 ? null : Math.floor(v / 1000);
  };
  return onlineCpus(root).map((id) => {
    const d = `${CPU_DIR}/cpu${id}`;
    return {
      id,
      maxMHz: mhz(`${d}/cpufreq/cpuinfo_max_freq`),
      baseMHz: mhz(`${d}/cpufreq/base_frequency`),
      capacity: uint(root, `${d}/cpu_capacity`),
    };
  });
}
