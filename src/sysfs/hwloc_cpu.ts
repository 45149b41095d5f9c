// The CPU topology files hwloc's Linux discovery builds its CPU side from (look_sysfscpu): for
// each online CPU with a topology directory, the masks of its core (core_cpus, or
// thread_siblings on kernels before 5.6), cluster (cluster_cpus), die (die_cpus) and package
// (package_cpus, or core_siblings), their ids, and each cache index's shared_cpu_map, level,
// type, id, size and geometry. Null when cpu0 has neither file naming (hwloc cannot read it).
//
// With `shared`, what a CPU shares with a CPU read before it is not read again: a CPU in an
// earlier CPU's core mask has that core's masks and ids, one in an earlier CPU's cluster, die or
// package mask that level's, one in an earlier CPU's indexM shared_cpu_map that cache (the kernel
// numbers a CPU's indexes the same way on every CPU, and the masks are symmetric). A machine of
// 1,792 CPUs then reads each core, package and L3 once, not once a CPU. With `cores` (what
// numakit's topology read of each core, CoreFiles), a core's mask and id and its cluster's id are
// taken from there, not read a second time: core_cpus and thread_siblings are thread_siblings_list's
// mask (Documentation/ABI/stable/sysfs-devices-system-cpu), core_id and cluster_id the same files.
import { parseCpuList, parseCpuMask } from '../model/cpuset.js';
import type { CpuKindValues, HwlocCacheIndex, HwlocCpu } from '../model/hwloc_io.js';
import { CPU_DIR, type CoreFiles, listCpuDirs } from './cpu_topology.js';
import { isDirectory, listDir, readText } from './read.js';
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

/** cpuN/cache/indexJ, or null where it has no shared_cpu_map (hwloc skips the index). */
function readCacheIndex(root: SysRoot, d: string): HwlocCacheIndex | null {
  const cpus = mask(root, `${d}/shared_cpu_map`);
  if (cpus === null) return null;
  const type = readText(root, `${d}/type`) ?? '';
  return {
    cpus,
    level: uint(root, `${d}/level`),
    type: type.startsWith('Data') ? 'Data' : type.startsWith('Instruction') ? 'Instruction' : 'Unified',
    id: uint(root, `${d}/id`),
    sizeKb: uint(root, `${d}/size`) ?? 0,
    lineSize: uint(root, `${d}/coherency_line_size`) ?? 0,
    sets: uint(root, `${d}/number_of_sets`) ?? 0,
    linesPerTag: uint(root, `${d}/physical_line_partition`) ?? 1,
  };
}

/** The online CPUs hwloc looks at: cpu/online (else each cpuN/online), with a topology dir. */
export function readHwlocOnlineCpus(root: SysRoot): number[] {
  const list = readText(root, `${CPU_DIR}/online`);
  let online: Set<number> | null = null;
  try {
    online = list === null ? null : new Set(parseCpuList(list));
  } catch {
    online = null;
  }
  return listCpuDirs(root).filter((c) => {
    if (online !== null ? !online.has(c) : readText(root, `${CPU_DIR}/cpu${c}/online`)?.trim() === '0') return false;
    return isDirectory(root, `${CPU_DIR}/cpu${c}/topology`);
  });
}

/** hwloc's indexes: index0 to index9, in that order. */
const INDEXES = Array.from({ length: 10 }, (_, j) => `index${j}`);

/**
 * What the CPUs read so far share, by CPU id: the value of a level (a core's masks and ids, a
 * cluster's, die's or package's mask and id, a cache index) read by the first CPU whose mask
 * holds the id. Only a mask that holds the CPU that read it is shared (else it says nothing of
 * the CPUs it names).
 */
class Shared<T> {
  readonly #by = new Map<number, T>();
  get(cpu: number): T | undefined {
    return this.#by.get(cpu);
  }
  /** `value` for every CPU of `cpus` that has none yet, when `cpus` holds `reader`. */
  add(reader: number, cpus: readonly number[] | null, value: T): T {
    if (cpus?.includes(reader)) for (const c of cpus) if (!this.#by.has(c)) this.#by.set(c, value);
    return value;
  }
}

type Level = { readonly cpus: readonly number[] | null; readonly id: number | null };
type Core = { readonly core: Level; readonly cluster: Level; readonly die: Level; readonly pkg: Level };

interface Known {
  readonly core: Shared<Core>;
  readonly cluster: Shared<Level>;
  readonly die: Shared<Level>;
  readonly pkg: Shared<Level>;
  readonly caches: Map<string, Shared<HwlocCacheIndex>>;
  /** The cache indexes the CPU read last has (a CPU sharing all of them has no other: SMT threads). */
  last: readonly string[];
}

interface Ctx {
  readonly root: SysRoot;
  readonly only: (m: readonly number[] | null) => number[] | null;
  readonly fresh: boolean;
  readonly known: Known | null;
  readonly cores: ReadonlyMap<number, CoreFiles> | undefined;
}

/**
 * One level of `id` (its mask filtered to the online CPUs, and its id): shared, else read; `idRead`,
 * its id as read before (numakit's topology), else null.
 */
function level(
  c: Ctx,
  id: number,
  files: { mask: string; id: string; idRead?: number | null },
  known: Shared<Level> | undefined,
): Level {
  const had = known?.get(id);
  if (had !== undefined) return had;
  const t = `${CPU_DIR}/cpu${id}/topology`;
  const cpus = c.only(mask(c.root, `${t}/${files.mask}`));
  // hwloc reads a level's id only where it has the level's mask.
  const read = { cpus, id: cpus === null ? null : (files.idRead ?? uint(c.root, `${t}/${files.id}`)) };
  return known === undefined ? read : known.add(id, read.cpus, read);
}

/** A core's mask and id: as numakit's topology read them (both known), else read. */
function coreLevel(c: Ctx, id: number, r: CoreFiles | undefined): Level {
  if (r?.siblings != null && r.core !== null) return { cpus: c.only(r.siblings), id: r.core };
  return level(c, id, { mask: c.fresh ? 'core_cpus' : 'thread_siblings', id: 'core_id' }, undefined);
}

/** A core's levels: a thread of a core read before takes them all from it. */
function coreOf(c: Ctx, id: number): Core {
  const k = c.known;
  const had = k?.core.get(id);
  if (had !== undefined) return had;
  const r = c.cores?.get(id);
  const core = coreLevel(c, id, r);
  const read: Core = {
    core,
    cluster: level(c, id, { mask: 'cluster_cpus', id: 'cluster_id', idRead: r?.cluster ?? null }, k?.cluster),
    die: level(c, id, { mask: 'die_cpus', id: 'die_id' }, k?.die),
    pkg: level(c, id, { mask: c.fresh ? 'package_cpus' : 'core_siblings', id: 'physical_package_id' }, k?.pkg),
  };
  return k === null ? read : k.core.add(id, core.cpus, read);
}

function cachesOf(c: Ctx, id: number): HwlocCacheIndex[] {
  const dir = `${CPU_DIR}/cpu${id}/cache`;
  const k = c.known;
  const had = (idx: string) => k?.caches.get(idx)?.get(id);
  // A CPU sharing every index of the CPU read last (its SMT sibling) has no index of its own left.
  let names: readonly string[] = INDEXES;
  if (k !== null) {
    names = k.last.length > 0 && k.last.every((idx) => had(idx) !== undefined) ? k.last : listIndexes(c.root, dir);
    k.last = names;
  }
  const out: HwlocCacheIndex[] = [];
  for (const idx of names) {
    const shared = had(idx);
    if (shared !== undefined) {
      out.push(shared);
      continue;
    }
    const read = readCacheIndex(c.root, `${dir}/${idx}`);
    if (read === null) continue;
    const cache = { ...read, cpus: c.only(read.cpus)! };
    if (k !== null) {
      const by = k.caches.get(idx) ?? k.caches.set(idx, new Shared()).get(idx)!;
      by.add(id, cache.cpus, cache);
    }
    out.push(cache);
  }
  return out;
}

/** The indexes hwloc tries (index0 to index9) that cpuN/cache has, in hwloc's order. */
function listIndexes(root: SysRoot, dir: string): string[] {
  const names = new Set(listDir(root, dir) ?? []);
  return INDEXES.filter((n) => names.has(n));
}

/**
 * hwloc's view of `cpus` (readHwlocOnlineCpus); `shared`: read what CPUs share once, `cores`: take
 * what numakit's topology read of each core (above).
 */
export function readHwlocCpus(
  root: SysRoot,
  cpus: readonly number[],
  opts: { shared: boolean; cores?: ReadonlyMap<number, CoreFiles> },
): HwlocCpu[] | null {
  if (cpus.length === 0) return null;
  const t0 = `${CPU_DIR}/cpu${cpus[0]}/topology`;
  const fresh = readText(root, `${t0}/package_cpus`) !== null;
  if (!fresh && readText(root, `${t0}/core_siblings`) === null && readText(root, `${t0}/thread_siblings`) === null)
    return null;
  const inSet = new Set(cpus);
  const only = (m: readonly number[] | null) => (m === null ? null : m.filter((c) => inSet.has(c)));
  const known: Known | null = opts.shared
    ? { core: new Shared(), cluster: new Shared(), die: new Shared(), pkg: new Shared(), caches: new Map(), last: [] }
    : null;
  const c: Ctx = { root, only, fresh, known, cores: opts.cores };
  return cpus.map((id) => {
    const { core, cluster, die, pkg } = coreOf(c, id);
    return {
      id,
      core: core.cpus,
      coreId: core.id,
      cluster: cluster.cpus,
      clusterId: cluster.id,
      die: die.cpus,
      dieId: die.id,
      package: pkg.cpus,
      packageId: pkg.id,
      caches: cachesOf(c, id),
    };
  });
}

/** cpufreq's hardware maximum and intel_pstate's base frequency (kHz -> MHz), and cpu_capacity, of `cpus`. */
export function readCpuKindValues(root: SysRoot, cpus: readonly number[]): CpuKindValues[] {
  const mhz = (path: string) => {
    const v = uint(root, path);
    return v === null || v <= 0 ? null : Math.floor(v / 1000);
  };
  return cpus.map((id) => {
    const d = `${CPU_DIR}/cpu${id}`;
    return {
      id,
      maxMHz: mhz(`${d}/cpufreq/cpuinfo_max_freq`),
      baseMHz: mhz(`${d}/cpufreq/base_frequency`),
      capacity: uint(root, `${d}/cpu_capacity`),
    };
  });
}
