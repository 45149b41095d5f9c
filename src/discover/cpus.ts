// The CPUs of the machine and of each node, as hwloc counts them:
// - a node's CPUs are those of nodeN/cpulist that are present (cpu/present); trimmed or
//   hot-unplugged machines list CPUs there that do not exist (88 listed, 16 present);
// - offline CPUs stay, marked offline (cpu/online);
// - CPUs outside the cgroup cpuset numakit runs in are marked not allowed (hwloc's allowed set).
// A cpulist that cannot be read or parsed falls back to the cpuN/nodeM links.
import { formatCpuList } from '../model/cpuset.js';
import { l3ByCpu, type Cache, type Cpu, type CpusetRestriction } from '../model/topology.js';
import { readMachineCaches } from '../sysfs/cpu_cache.js';
import { readCgroupAllowedCpus } from '../sysfs/cgroup_cpuset.js';
import {
  CPU_DIR,
  knownCpus,
  listCpuDirs,
  readCpuList,
  readCpuTopology,
  type CoreFiles,
  type KnownCpus,
} from '../sysfs/cpu_topology.js';
import { readNodeCpulist } from '../sysfs/node_list.js';
import { listNumbered } from '../sysfs/read.js';
import type { SysRoot } from '../sysfs/root.js';
import { MAX_NODES } from '../model/limits.js';

/** Node of each CPU from the cpuN/nodeM links (kept for offline CPUs, unlike node cpulists). */
export function cpuNodeLinks(root: SysRoot, cpuIds: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const cpu of cpuIds) {
    const nodes = listNumbered(root, `${CPU_DIR}/cpu${cpu}`, 'node', MAX_NODES);
    if (nodes.length > 0) m.set(cpu, nodes[0]!);
  }
  return m;
}

export interface CpuSets {
  /** The cpuN directories. */
  readonly dirs: number[];
  /** CPUs that exist: cpu/present, else the cpuN directories; null when the tree says neither. */
  readonly present: number[] | null;
  /** `present` as a set, made once (each node's cpulist is checked against it); null with `present`. */
  readonly presentSet: ReadonlySet<number> | null;
  /** A CPU's node from its cpuN/nodeM link, read on first use (most CPUs are named by a cpulist). */
  readonly link: (cpu: number) => number | undefined;
}

export function readCpuSets(root: SysRoot): CpuSets {
  const dirs = listCpuDirs(root);
  const present = readCpuList(root, 'present') ?? (dirs.length > 0 ? dirs : null);
  const seen = new Map<number, number | undefined>();
  const link = (cpu: number) => {
    if (!seen.has(cpu)) seen.set(cpu, cpuNodeLinks(root, [cpu]).get(cpu));
    return seen.get(cpu);
  };
  return { dirs, present, presentSet: present === null ? null : new Set(present), link };
}

/**
 * CPUs of a node: its cpulist (or, when unusable, its links) less the CPUs that are not present
 * and those an earlier node already has (`taken`: a CPU is on one node).
 */
export function nodeCpus(root: SysRoot, id: number, sets: CpuSets, taken: Set<number>, warnings: string[]): number[] {
  const listed = readNodeCpulist(root, id) ?? sets.dirs.filter((c) => sets.link(c) === id);
  // Unknown which CPUs are present: every listed one is.
  const present = sets.presentSet ?? new Set(listed);
  const gone = listed.filter((c) => !present.has(c));
  if (gone.length > 0)
    warnings.push(
      `node ${id}: cpulist names ${gone.length} CPU(s) not in cpu/present (${formatCpuList(gone)}): left out`,
    );
  const twice = listed.filter((c) => present.has(c) && taken.has(c));
  if (twice.length > 0)
    warnings.push(`node ${id}: cpulist names CPU(s) ${formatCpuList(twice)} of another node: left out`);
  const cpus = listed.filter((c) => present.has(c) && !taken.has(c));
  for (const c of cpus) taken.add(c);
  return cpus;
}

export interface CpuView {
  readonly cpus: Cpu[];
  /** The machine's distinct caches; [] when not read or sysfs has none. */
  readonly caches: Cache[];
  readonly possible: number[];
  readonly cpuset: CpusetRestriction | null;
}

/**
 * What a CPU shares with CPUs read before it: its core's ids (a thread sibling has the same
 * package, die, cluster and core) and its caches (readMachineCaches). On a 2-socket SMT server
 * this halves the per-CPU reads and reads each L3 once, not per CPU. Off while a snapshot
 * records what it reads, so a snapshot holds every CPU's files.
 */
function sharedTopology(root: SysRoot): KnownCpus | undefined {
  return root.onAccess === undefined ? knownCpus() : undefined;
}

const TYPE_RANK = { Data: 0, Instruction: 1, Unified: 2 } as const;

/** By level, data before instruction, then first CPU (Topology.caches' order). */
function sortCaches(caches: Cache[]): Cache[] {
  return caches.sort(
    (a, b) => a.level - b.level || TYPE_RANK[a.type] - TYPE_RANK[b.type] || (a.cpus[0] ?? 0) - (b.cpus[0] ?? 0),
  );
}

/** The machine's caches, as the CPUs `ids` see them (sorted). */
export function readCpuCaches(root: SysRoot, ids: readonly number[]): Cache[] {
  return sortCaches(readMachineCaches(root, ids, { shared: sharedTopology(root) !== undefined }));
}

/**
 * Every present CPU with its node, online flag, L3 and whether the cgroup allows it, and the
 * machine's caches (not read with `caches: false`: numactl --hardware's view has no use for them;
 * with `cores: false` no CPU's core either; `record` gets what each CPU's own core files said:
 * readCpuTopology).
 */
export function readCpus(
  root: SysRoot,
  sets: CpuSets,
  nodeOf: (cpu: number) => number | null,
  opts: { caches?: boolean; cores?: boolean; record?: Map<number, CoreFiles> } = {},
): CpuView {
  const { dirs } = sets;
  const present = sets.presentSet ?? new Set(dirs);
  const possible = readCpuList(root, 'possible') ?? dirs;
  const onlineList = readCpuList(root, 'online');
  const online = onlineList === null ? null : new Set(onlineList);
  const restriction = readCgroupAllowedCpus(root, 'self');
  const allowed = restriction === null ? null : new Set(restriction.cpus);
  const known = sharedTopology(root);
  const ids = dirs.filter((id) => present.has(id));
  const caches = opts.caches === false ? [] : readCpuCaches(root, ids);
  const l3 = l3ByCpu(caches);
  // One options object for every CPU, its `online` set for each (readCpuTopology keeps none of
  // it), and each Cpu written out field by field: spreading two objects a CPU was most of this
  // loop's time on 1,792 CPUs.
  const read: { known?: KnownCpus; online?: boolean; cores?: boolean; record?: Map<number, CoreFiles> } = {
    ...(known === undefined ? {} : { known }),
    ...(opts.cores === false ? { cores: false } : {}),
    ...(opts.record === undefined ? {} : { record: opts.record }),
  };
  const cpus = ids.map((id): Cpu => {
    if (known !== undefined && online) read.online = online.has(id);
    const t = readCpuTopology(root, id, read);
    // The fields in the order a spread of `t` gave them (topo --json prints them so).
    return {
      id: t.id,
      online: online ? online.has(id) : t.online,
      package: t.package,
      die: t.die,
      cluster: t.cluster,
      core: t.core,
      siblings: t.siblings,
      l3: l3.get(id) ?? [],
      node: nodeOf(id),
      allowed: allowed === null || allowed.has(id),
    };
  });
  // Only a cpuset that leaves something out is a restriction worth showing.
  const restricts = restriction !== null && cpus.some((c) => !c.allowed);
  return { cpus, caches, possible, cpuset: restricts ? restriction : null };
}
