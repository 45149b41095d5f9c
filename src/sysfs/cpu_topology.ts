// /sys/devices/system/cpu/{possible,online} and per CPU topology/*, online (caches: cpu_cache.ts).
// cpu0 usually has no "online" file (it cannot be offlined): absent means online.
// die_id and cluster_id appeared in kernels 5.2 and 5.16; absent on older ones.
// An empty cpuN/online (seen on some kernels) is "no value": the CPU counts as online, as when
// the file is absent. Topology ids are -1 where the architecture has no such level.
import { parseCpuList, parseCpuMask } from '../model/cpuset.js';
import { MAX_CPUS } from '../model/limits.js';
import { integerIn } from './parse_util.js';
import { listNumbered } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const CPU_DIR = 'sys/devices/system/cpu';

export interface CpuTopologyRaw {
  readonly id: number;
  readonly online: boolean;
  readonly package: number | null;
  readonly die: number | null;
  readonly cluster: number | null;
  readonly core: number | null;
  readonly siblings: number[];
}

const parseTopologyId = integerIn(-1, 2 ** 31 - 1);
const parseOnline = integerIn(0, 1);

function readInt(root: SysRoot, path: string, parse = parseTopologyId): number | null {
  return readParsed(root, path, parse);
}

function readList(root: SysRoot, path: string): number[] | null {
  return readParsed(root, path, parseCpuList, { emptyIsValue: true });
}

export function readCpuList(root: SysRoot, which: 'possible' | 'online' | 'present' | 'isolated'): number[] | null {
  return readList(root, `${CPU_DIR}/${which}`);
}

/** CPU ids from the cpuN directories. */
export function listCpuDirs(root: SysRoot): number[] {
  return listNumbered(root, CPU_DIR, 'cpu', MAX_CPUS);
}

/**
 * What the CPUs read so far share, by CPU id: the first online CPU read from its own files whose
 * thread_siblings_list holds the id. A later CPU found here reuses what that one read. An index,
 * not a search of every CPU read: a 512-thread machine asks 512 times.
 */
export interface KnownCpus {
  readonly siblings: Map<number, CpuTopologyRaw>;
  /**
   * Package, die and cluster ids by CPU, from the first CPU of each that was read with the list
   * of CPUs sharing it (package_cpus_list ...): one read of an id and one of a list a package,
   * not one of the id per core (896 cores on 8 sockets). A level whose list files the kernel
   * does not have is `absent` (its id is read per core, and the list files are not tried again).
   */
  readonly groups: Record<Level, { readonly ids: Map<number, number | null>; absent: boolean }>;
}

type Level = 'package' | 'die' | 'cluster';

/**
 * What a CPU's own core files said, as read for numakit's topology: thread_siblings_list (null
 * when absent or unparseable), core_id and the cluster's id (null when not known). hwloc's reader
 * of the same core (sysfs/hwloc_cpu.ts: core_cpus is thread_siblings' mask, core_id and
 * cluster_id the same files) takes them instead of reading them again.
 */
export interface CoreFiles {
  readonly siblings: readonly number[] | null;
  readonly core: number | null;
  readonly cluster: number | null;
}

export function knownCpus(): KnownCpus {
  const level = () => ({ ids: new Map<number, number | null>(), absent: false });
  return { siblings: new Map(), groups: { package: level(), die: level(), cluster: level() } };
}

/** Files `t` as the core of each of its siblings that has none yet. */
function remember(known: KnownCpus, t: CpuTopologyRaw): void {
  if (!t.online || t.siblings.length <= 1) return;
  for (const id of t.siblings) if (!known.siblings.has(id)) known.siblings.set(id, t);
}

/** A CPU read before this one whose siblings list holds `cpu` (and was read from its own files). */
function sharer(known: KnownCpus | undefined, cpu: number): CpuTopologyRaw | undefined {
  return known?.siblings.get(cpu);
}

/**
 * Each level's id file and the files listing the CPUs that share it, newest name first: a list
 * (Documentation/ABI/stable/sysfs-devices-system-cpu), else the hex mask of older kernels and
 * captures; core_siblings is package_cpus's name before 5.6.
 */
const LEVELS: Record<Level, { id: string; lists: string[]; masks: string[] }> = {
  package: {
    id: 'physical_package_id',
    lists: ['package_cpus_list', 'core_siblings_list'],
    masks: ['package_cpus', 'core_siblings'],
  },
  die: { id: 'die_id', lists: ['die_cpus_list'], masks: ['die_cpus'] },
  cluster: { id: 'cluster_id', lists: ['cluster_cpus_list'], masks: ['cluster_cpus'] },
};

/** The CPUs sharing a level with the CPU whose topology directory is `top`, or null (no such file). */
function readGroup(root: SysRoot, top: string, level: Level): number[] | null {
  const { lists, masks } = LEVELS[level];
  for (const f of lists) {
    const l = readList(root, `${top}/${f}`);
    if (l !== null) return l;
  }
  for (const f of masks) {
    const m = readParsed(root, `${top}/${f}`, parseCpuMask, { emptyIsValue: true });
    if (m !== null) return m;
  }
  return null;
}

/**
 * A level's id for `cpu`: from a CPU read before it that shares the level, else from its own
 * file, and then (once a level, while the kernel has the files) given to every CPU its list names.
 */
function levelId(
  root: SysRoot,
  cpu: number,
  o: { top: string; level: Level; known: KnownCpus | undefined; coreCpus: number },
): number | null {
  const { top, level, known } = o;
  const g = known?.groups[level];
  if (g?.ids.has(cpu)) return g.ids.get(cpu)!;
  const id = readInt(root, `${top}/${LEVELS[level].id}`);
  if (g === undefined || g.absent || id === null) return id;
  const group = readGroup(root, top, level);
  // A level no wider than a core (a cluster of one core's threads on x86, a socket of one core in
  // a VM) saves nothing over the core's own sharing: its id is read per core, its list no more.
  if (group === null || group.length <= o.coreCpus) g.absent = true;
  // A list that does not hold the CPU itself is not this CPU's group: its id stays per core.
  else if (group.includes(cpu)) for (const c of group) if (!g.ids.has(c)) g.ids.set(c, id);
  return id;
}

/**
 * One CPU's topology. With `online`, its cpuN/online file is not read. With `known` (the CPUs
 * read so far), a thread sibling of a CPU already read takes its core's ids from it, and a CPU
 * of a package, die or cluster already read its id: the same values the files would give, read once.
 * With `cores: false` its core is not read (thread_siblings_list, core_id, cluster_id: siblings
 * [cpu], core and cluster null), only its package and die: three files a core fewer.
 */
export function readCpuTopology(
  root: SysRoot,
  cpu: number,
  opts: { known?: KnownCpus; online?: boolean; cores?: boolean; record?: Map<number, CoreFiles> } = {},
): CpuTopologyRaw {
  const { known } = opts;
  const dir = `${CPU_DIR}/cpu${cpu}`;
  // The caller may know it from cpu/online (one read for all CPUs).
  const onlineFlag = opts.online !== undefined ? null : readInt(root, `${dir}/online`, parseOnline);
  const online = opts.online ?? (onlineFlag === null ? true : onlineFlag === 1);
  const top = `${dir}/topology`;
  const core = online ? sharer(known, cpu) : undefined;
  // Levels are shared only between online CPUs (an offline CPU has no topology directory on most kernels).
  const shared = online ? known : undefined;
  const cores = opts.cores !== false;
  const listed = core || !cores ? null : readList(root, `${top}/thread_siblings_list`);
  const siblings = core ? core.siblings : (listed ?? [cpu]);
  const level = (l: Level) => levelId(root, cpu, { top, level: l, known: shared, coreCpus: siblings.length });
  const t: CpuTopologyRaw = {
    id: cpu,
    online,
    package: core ? core.package : level('package'),
    die: core ? core.die : level('die'),
    cluster: core ? core.cluster : cores ? level('cluster') : null,
    core: core ? core.core : cores ? readInt(root, `${top}/core_id`) : null,
    siblings,
  };
  if (known !== undefined && core === undefined) remember(known, t);
  if (core === undefined && cores) opts.record?.set(cpu, { siblings: listed, core: t.core, cluster: t.cluster });
  return t;
}
