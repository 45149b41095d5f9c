// /sys/devices/system/cpu/{possible,online} and per CPU topology/*, online (caches: cpu_cache.ts).
// cpu0 usually has no "online" file (it cannot be offlined): absent means online.
// die_id and cluster_id appeared in kernels 5.2 and 5.16; absent on older ones.
// An empty cpuN/online (seen on some kernels) is "no value": the CPU counts as online, as when
// the file is absent. Topology ids are -1 where the architecture has no such level.
import { parseCpuList } from '../model/cpuset.js';
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
}

export function knownCpus(): KnownCpus {
  return { siblings: new Map() };
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
 * One CPU's topology. With `online`, its cpuN/online file is not read. With `known` (the CPUs
 * read so far), a thread sibling of a CPU already
 * read takes its core's ids from it: the same values the files would give, read once.
 */
export function readCpuTopology(
  root: SysRoot,
  cpu: number,
  opts: { known?: KnownCpus; online?: boolean } = {},
): CpuTopologyRaw {
  const { known } = opts;
  const dir = `${CPU_DIR}/cpu${cpu}`;
  // The caller may know it from cpu/online (one read for all CPUs).
  const onlineFlag = opts.online !== undefined ? null : readInt(root, `${dir}/online`, parseOnline);
  const online = opts.online ?? (onlineFlag === null ? true : onlineFlag === 1);
  const top = `${dir}/topology`;
  const core = online ? sharer(known, cpu) : undefined;
  // An offline CPU has no topology directory on most kernels.
  const t: CpuTopologyRaw = {
    id: cpu,
    online,
    package: core ? core.package : readInt(root, `${top}/physical_package_id`),
    die: core ? core.die : readInt(root, `${top}/die_id`),
    cluster: core ? core.cluster : readInt(root, `${top}/cluster_id`),
    core: core ? core.core : readInt(root, `${top}/core_id`),
    siblings: core ? core.siblings : (readList(root, `${top}/thread_siblings_list`) ?? [cpu]),
  };
  if (known !== undefined && core === undefined) remember(known, t);
  return t;
}
