// The binding half of `numakit run`, shared with `bench ab`: what this machine and process
// allow (read once), and setting a RunArgs' memory policy and CPU affinity on the calling
// thread, which a command started from it (exec, or fork from this thread) inherits.
import { type BigIntStats, statSync } from 'node:fs';
import { posix } from 'node:path';
import { formatCpuList, parseCpuList } from '../model/cpuset.js';
import { NumakitError } from '../model/errors.js';
import type { MemoryOption, RunArgs } from '../model/run_args.js';
import {
  SpecError,
  parseCpuSpec,
  parseNodeSpec,
  pciNumaNodePath,
  type DeviceKind,
  type SpecContext,
} from '../policy/nodespec.js';
import { listDir, readText, resolvePath } from '../sysfs/read.js';
import { listNodeDirs, readNodeCpulist, readNodeState } from '../sysfs/node_list.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import { readCgroupAllowedCpus } from '../sysfs/cgroup_cpuset.js';
import type { SysRoot } from '../sysfs/root.js';
import type { CpusetRestriction } from '../model/topology.js';

type Native = typeof import('../native/index.js');

/** What run needs to know about this machine and this process, read once. */
export interface SystemSets {
  nodes: number[];
  memoryNodes: number[];
  cpus: number[];
  memsAllowed: readonly number[];
  cpusAllowed: readonly number[];
  nodeCpus: Map<number, number[]>;
}

export function readSystem(root: SysRoot): SystemSets {
  const nodes = readNodeState(root, 'online') ?? (listNodeDirs(root).length > 0 ? listNodeDirs(root) : [0]);
  const cpuText =
    readText(root, 'sys/devices/system/cpu/present') ?? readText(root, 'sys/devices/system/cpu/possible') ?? '0';
  const cpus = parseCpuList(cpuText);
  const status = readProcStatus(root, process.pid);
  const nodeCpus = new Map(nodes.map((n) => [n, readNodeCpulist(root, n) ?? []] as const));
  return {
    nodes,
    memoryNodes: readNodeState(root, 'has_memory') ?? nodes,
    cpus,
    memsAllowed: status?.memsAllowed ?? nodes,
    cpusAllowed: status?.cpusAllowed ?? cpus,
    nodeCpus,
  };
}

/**
 * The device an ip:HOST spec is routed through (discover/route_device.ts: glibc's resolver and
 * /proc/net). Passed in by the caller that loaded it (loadRouting), so a launch whose specs name
 * no host does not load child_process and os (docs/startup.md).
 */
export type RouteDevice = (root: SysRoot, host: string) => string;

/** routeDevice when one of `specs` is an ip:HOST spec, else undefined (nothing loaded). */
export async function loadRouting(specs: readonly (string | undefined)[]): Promise<RouteDevice | undefined> {
  if (!specs.some((s) => s !== undefined && /(^|[!+])ip:/.test(s))) return undefined;
  return (await import('../discover/route_device.js')).routeDevice;
}

export function nodeContext(sys: SystemSets, all: boolean, root: SysRoot, route?: RouteDevice): SpecContext {
  return {
    allowed: all ? sys.nodes : sys.memsAllowed,
    universe: sys.nodes,
    resolveDevice: (kind, id) => deviceNode(root, kind, id, route),
  };
}

export function cpuContext(sys: SystemSets, all: boolean): SpecContext {
  return { allowed: all ? sys.cpus : sys.cpusAllowed, universe: sys.cpus };
}

export const MODES = {
  interleave: 3,
  'weighted-interleave': 6,
  membind: 2,
  preferred: 1,
  'preferred-many': 5,
} as const;
const SINCE: Partial<Record<MemoryOption['kind'], string>> = { 'weighted-interleave': '6.9', 'preferred-many': '5.15' };

export interface MemoryContext {
  sys: SystemSets;
  all: boolean;
  root: SysRoot;
  balancing: boolean;
  note: (line: string) => void;
  route?: RouteDevice;
}

/**
 * The policy a memory option asks for, its nodes parsed and checked (they exist and have
 * memory; --preferred names one). localalloc is `local` (MPOL_LOCAL for a process; on a range
 * libnuma's numa_setlocal_memory uses MPOL_PREFERRED without nodes, the same thing).
 */
export function memoryPolicy(
  native: Native,
  memory: MemoryOption,
  o: { sys: SystemSets; all: boolean; root: SysRoot; route?: RouteDevice },
): { mode: number; nodes: number[] } {
  const { sys, all, root } = o;
  if (memory.kind === 'localalloc') return { mode: native.MPOL_LOCAL, nodes: [] };
  const nodes = parseNodeSpec(memory.spec, nodeContext(sys, all, root, o.route));
  for (const n of nodes) {
    if (!sys.nodes.includes(n)) throw new SpecError(`node ${n} does not exist (nodes: ${formatCpuList(sys.nodes)})`);
    if (!sys.memoryNodes.includes(n))
      throw new SpecError(`node ${n} has no memory (nodes with memory: ${formatCpuList(sys.memoryNodes)})`);
  }
  if (memory.kind === 'preferred' && nodes.length !== 1) {
    throw new SpecError(`--preferred takes one node, not ${formatCpuList(nodes)}; use --preferred-many for several`);
  }
  return { mode: MODES[memory.kind], nodes };
}

/** The kernel release a mode needs, when newer than every kernel numakit supports otherwise. */
export function modeSince(kind: MemoryOption['kind']): string | undefined {
  return SINCE[kind];
}

export function applyMemory(native: Native, memory: MemoryOption, o: MemoryContext): void {
  const { mode, nodes } = memoryPolicy(native, memory, o);
  if (memory.kind === 'localalloc') {
    native.setMempolicy({ mode, nodes });
    return;
  }
  if (o.balancing) {
    try {
      native.setMempolicy({ mode, nodes, modeFlags: native.MPOL_F_NUMA_BALANCING });
      return;
    } catch (e) {
      if (!(e instanceof native.NativeError && e.code === 'EINVAL')) throw e;
      // libnuma's numa_set_membind_balancing() falls back the same way, silently.
      o.note(
        'numakit: run: --balancing: this kernel rejects MPOL_F_NUMA_BALANCING (Linux 5.12+); binding without it\n',
      );
    }
  }
  try {
    native.setMempolicy({ mode, nodes });
  } catch (e) {
    const since = SINCE[memory.kind];
    if (e instanceof native.NativeError && e.code === 'EINVAL' && since !== undefined) {
      throw new NumakitError(
        `--${memory.kind} needs Linux ${since} or later; this kernel rejected it (set_mempolicy: Invalid argument)`,
      );
    }
    throw e;
  }
}

/**
 * The CPUs of the nodes of a --cpunodebind spec, as numactl binds them: every CPU of those
 * nodes, whatever this process's current affinity (a `taskset` before numakit does not narrow
 * it); the kernel keeps the result inside the cgroup's cpuset (sched_setaffinity intersects with
 * it, kernel/sched/core.c __sched_setaffinity). The nodes themselves are bounded by Mems_allowed
 * unless --all. A node none of whose CPUs the cgroup's cpuset allows is refused here, naming
 * them, rather than by the kernel's bare EINVAL.
 */
function cpusOfNodes(spec: string, sys: SystemSets, all: boolean, root: SysRoot, route?: RouteDevice): number[] {
  const nodes = parseNodeSpec(spec, nodeContext(sys, all, root, route));
  const own = nodes.flatMap((n) => {
    const cpus = sys.nodeCpus.get(n) ?? [];
    if (cpus.length === 0)
      throw new SpecError(`node ${n} has no CPUs (a memory-only node); --cpunodebind needs nodes with CPUs`);
    return cpus;
  });
  const cgroup = readCgroupAllowedCpus(root, 'self');
  if (cgroup !== null) {
    const cpuset = new Set(cgroup.cpus);
    if (!own.some((c) => cpuset.has(c)))
      throw new SpecError(`--cpunodebind ${spec}: ${outsideCpuset(nodes, own, cgroup)}`);
  }
  return own;
}

/** Why none of `cpus` (the CPUs of `nodes`) can be used: the cgroup's cpuset allows none of them. */
export function outsideCpuset(nodes: number[], cpus: number[], cgroup: CpusetRestriction): string {
  const whose = `${nodes.length === 1 ? `node ${nodes[0]}'s` : `nodes ${formatCpuList(nodes)}'s`} CPUs (${formatCpuList(cpus)})`;
  return `none of ${whose} is in cgroup ${cgroup.cgroup}'s cpuset (${formatCpuList(cgroup.cpus) || 'none'}, /${cgroup.path})`;
}

/** The node a device sits on, the way numactl's affinity.c finds it. */
function deviceNode(root: SysRoot, kind: DeviceKind, id: string, route?: RouteDevice): number {
  const name = `${kind}:${id}`;
  switch (kind) {
    case 'pci':
      return readDeviceNode(root, pciNumaNodePath(id), name);
    case 'netdev':
    case 'block': {
      if (id.includes('/') || id === '.' || id === '..') throw new SpecError(`${name}: not a device name`);
      const cls = kind === 'netdev' ? 'net' : 'block';
      if (readText(root, `sys/class/${cls}/${id}/uevent`) === null)
        throw new SpecError(`${name}: no such device in /sys/class/${cls}`);
      return nearestNode(root, resolvePath(root, `sys/class/${cls}/${id}`), name);
    }
    case 'file':
      return deviceNode(root, 'block', blockDeviceOf(root, id));
    case 'ip': {
      if (route === undefined)
        throw new SpecError(`${name}: ip:HOST is not resolved here; give the interface with netdev:IF`);
      const dev = route(root, id);
      try {
        return deviceNode(root, 'netdev', dev);
      } catch (e) {
        if (!(e instanceof SpecError)) throw e;
        const why = e.message.replace(/^netdev:\S+?:? /, '');
        throw new SpecError(`${name}: routed through ${dev}${why.startsWith('is ') ? `, which ${why}` : `: ${why}`}`);
      }
    }
  }
}

/** Walks up from a device directory to the nearest ancestor with a numa_node (partitions, namespaces). */
function nearestNode(root: SysRoot, dir: string, name: string): number {
  for (let d = dir; d.startsWith('sys/devices/'); d = posix.dirname(d)) {
    if (readText(root, `${d}/numa_node`) !== null) return readDeviceNode(root, `${d}/numa_node`, name);
  }
  throw new SpecError(`${name} is not attached to any NUMA node (a virtual device?)`);
}

function readDeviceNode(root: SysRoot, path: string, name: string): number {
  const text = readText(root, path);
  if (text === null) throw new SpecError(`${name}: no such device (/${path} is missing)`);
  const node = Number(text.trim());
  if (!Number.isInteger(node)) throw new SpecError(`${name}: /${path} holds '${text.trim()}', not a node`);
  if (node < 0) throw new SpecError(`${name}: the kernel does not know its node (/${path} is ${node})`);
  return node;
}

/** The block device holding PATH (or PATH itself if it is one), found by its major:minor. */
function blockDeviceOf(root: SysRoot, path: string): string {
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch {
    throw new SpecError(`file:${path}: cannot stat it`);
  }
  const dev = st.isBlockDevice() ? st.rdev : st.dev;
  // glibc's gnu_dev_major/minor: dev_t keeps the low 8 minor bits, then 12 major bits, then the rest.
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn));
  for (const name of listDir(root, 'sys/class/block') ?? []) {
    if (readText(root, `sys/class/block/${name}/dev`)?.trim() === `${major}:${minor}`) return name;
  }
  throw new SpecError(`file:${path}: its filesystem (device ${major}:${minor}) is on no block device`);
}

export interface BindingContext {
  readonly sys: SystemSets;
  readonly root: SysRoot;
  /** Where a one-line notice goes (a fallback the user should know about). */
  readonly note: (line: string) => void;
  /** For ip:HOST specs (loadRouting). */
  readonly route?: RouteDevice;
}

/** Sets `opts`' memory policy and CPU binding on the calling thread; throws SpecError/NativeError. */
export function applyBinding(
  native: Native,
  opts: Pick<RunArgs, 'memory' | 'cpus' | 'all' | 'balancing'>,
  b: BindingContext,
): void {
  if (opts.memory !== undefined)
    applyMemory(native, opts.memory, {
      sys: b.sys,
      all: opts.all,
      root: b.root,
      balancing: opts.balancing,
      note: b.note,
      route: b.route,
    });
  if (opts.cpus !== undefined) {
    const cpus =
      opts.cpus.kind === 'physcpubind'
        ? parseCpuSpec(opts.cpus.spec, cpuContext(b.sys, opts.all))
        : cpusOfNodes(opts.cpus.spec, b.sys, opts.all, b.root, b.route);
    setAffinity(native, cpus, b.root);
  }
}

/** sched_setaffinity, its EINVAL for CPUs all outside the cgroup's cpuset (--all) said in words. */
export function setAffinity(native: Native, cpus: number[], root: SysRoot): void {
  try {
    native.setAffinity(0, cpus);
  } catch (e) {
    const cg = e instanceof native.NativeError && e.code === 'EINVAL' ? readCgroupAllowedCpus(root, 'self') : null;
    if (cg !== null && !cpus.some((c) => cg.cpus.includes(c))) {
      throw new SpecError(
        `CPUs ${formatCpuList(cpus)} are all outside cgroup ${cg.cgroup}'s cpuset (${formatCpuList(cg.cpus) || 'none'}, /${cg.path}): the kernel refused them (sched_setaffinity: Invalid argument)`,
      );
    }
    throw e;
  }
}
