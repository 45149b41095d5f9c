// The machine as numakit sees it. Plain data, built by src/discover, read by policy and render.
import type { Fact } from './fact.js';

export type NodeId = number;
export type CpuId = number;
export type Pid = number;

export interface HugePagePool {
  readonly sizeKb: number;
  readonly total: number;
  readonly free: number;
  readonly surplus: number;
}

/** HMAT performance of a memory node as seen from its best initiators (access0 or access1). */
export interface NodeAccess {
  readonly initiators: NodeId[];
  readonly readLatencyNs: number | null;
  readonly writeLatencyNs: number | null;
  readonly readBandwidthMBps: number | null;
  readonly writeBandwidthMBps: number | null;
}

export interface NumaNode {
  readonly id: NodeId;
  readonly cpus: CpuId[];
  /** From nodeN/meminfo; null when the node has no meminfo (absent). */
  readonly memTotalBytes: number | null;
  readonly memFreeBytes: number | null;
  readonly hasCpu: boolean;
  readonly hasMemory: boolean;
  readonly hasNormalMemory: boolean;
  /** Distance to every node in `node/online` order, keyed by node id; empty when absent. */
  readonly distances: Record<NodeId, number>;
  readonly hugepages: HugePagePool[];
  /** HMAT access class 0 (nodeN/access0/initiators: the best initiators, CPUs or not). */
  readonly access: NodeAccess | null;
  /** HMAT access class 1 (nodeN/access1/initiators: the best initiators with CPUs). */
  readonly access1: NodeAccess | null;
  readonly memoryTier: number | null;
  /**
   * Its weight for weighted interleave (weighted_interleave/nodeN, Linux 6.9+); absent when the
   * kernel has none or the file could not be read.
   */
  readonly interleaveWeight?: number;
}

export interface Cpu {
  readonly id: CpuId;
  readonly node: NodeId | null;
  readonly online: boolean;
  readonly package: number | null;
  readonly die: number | null;
  readonly cluster: number | null;
  readonly core: number | null;
  readonly siblings: CpuId[];
  /** CPUs sharing this CPU's last-level (L3) cache; empty when unknown. */
  readonly l3: CpuId[];
  /**
   * Inside the cpuset of the cgroup numakit runs in (hwloc's "allowed" set, as opposed to its
   * "complete" set); true when no cgroup restricts it or the cgroup is unknown.
   */
  readonly allowed: boolean;
}

export type CacheType = 'Data' | 'Instruction' | 'Unified';

/** One CPU cache (an L2 of one core, an L3 of a CCX ...), as cpuN/cache/indexM describes it. */
export interface Cache {
  readonly level: number;
  readonly type: CacheType;
  /** null when sysfs gives no size (some firmware; captures made before size was read). */
  readonly sizeBytes: number | null;
  /** The CPUs that share it (shared_cpu_list), sorted. */
  readonly cpus: CpuId[];
}

/** The cgroup cpuset that restricts the reading process (and so what it may run on). */
export interface CpusetRestriction {
  /** The cgroup ("/batch.slice/job1") and the file its CPUs come from. */
  readonly cgroup: string;
  readonly path: string;
  readonly cpus: CpuId[];
}

export type DeviceKind = 'net' | 'nvme' | 'block' | 'gpu' | 'ib' | 'other';

export interface Device {
  readonly kind: DeviceKind;
  readonly name: string;
  /** Node from device/numa_node; null when unknown (-1 or absent), never guessed as 0. */
  readonly node: NodeId | null;
  readonly pciAddress: string | null;
  /** NVMe transport (pcie, tcp, rdma, fc, loop); null for others. */
  readonly transport: string | null;
  readonly driver: string | null;
  /** Free-form details for views: speed, queues, model, pci class ... */
  readonly details: Record<string, string | number>;
  /** IRQ numbers of the device (from msi_irqs), sorted. */
  readonly irqs: number[];
  /** Network queues (rx/tx counts) for net devices. */
  readonly queues?: { rx: number; tx: number };
  /**
   * Where the PCI function hangs: its host bridge ("pci0000:00") then each PCI bridge down to
   * it ("0000:00:01.1", ...), from its sysfs path; [] for a device with no PCI function.
   */
  readonly pciPath?: string[];
}

export interface KernelFacts {
  readonly cmdline: Fact<string>;
  readonly numaBalancing: Fact<number>;
  readonly numaBalancingScan: {
    readonly delayMs: Fact<number>;
    readonly periodMinMs: Fact<number>;
    readonly periodMaxMs: Fact<number>;
    readonly sizeMb: Fact<number>;
  };
  /** kernel.numa_balancing_promote_rate_limit_MBps (6.1+): the most a node takes in by promotion. */
  readonly promoteRateLimitMBps?: Fact<number>;
  readonly zoneReclaimMode: Fact<number>;
  readonly swappiness: Fact<number>;
  readonly thpEnabled: Fact<string>;
  readonly thpDefrag: Fact<string>;
  /** cpuinfo "hypervisor" flag. */
  readonly hypervisor: Fact<boolean>;
  /** cpuinfo "model name" by CPU id (as a string); {} where cpuinfo names no model (arm64). */
  readonly cpuModels?: Fact<Record<string, string>>;
  readonly productName: Fact<string>;
  readonly kernelRelease: Fact<string>;
  /** MemTotal of /proc/meminfo in bytes. */
  readonly memTotalBytes: Fact<number>;
}

export interface Topology {
  readonly nodes: NumaNode[];
  readonly cpus: Cpu[];
  readonly devices: Device[];
  /**
   * Every distinct cache of the present CPUs, by level (data before instruction before unified)
   * then first CPU; [] when sysfs has no
   * cpuN/cache directories (then caches are unknown, not absent from the hardware).
   */
  readonly caches: Cache[];
  readonly possibleNodes: NodeId[];
  readonly possibleCpus: CpuId[];
  readonly kernel: KernelFacts;
  /** The cgroup cpuset numakit runs in when it leaves out some CPUs of the machine; else null. */
  readonly cpuset: CpusetRestriction | null;
  /** Files that were expected but absent or unreadable, for "not checked" notes. */
  readonly warnings: string[];
}

export function nodeById(topo: Topology, id: NodeId): NumaNode | undefined {
  return topo.nodes.find((n) => n.id === id);
}

/**
 * The machine's memory, as every command states it: /proc/meminfo's MemTotal (all memory the
 * kernel manages), else the nodes' MemTotal added up. Per-node figures come from nodeN/meminfo;
 * on VMs with hot-added or ballooned memory the two can differ, and discovery warns once.
 */
export function machineMemoryBytes(topo: Topology): number {
  return topo.kernel.memTotalBytes.value ?? topo.nodes.reduce((s, n) => s + (n.memTotalBytes ?? 0), 0);
}

/** Distinct packages (sockets) that have online CPUs. */
export function packageIds(topo: Topology): number[] {
  const s = new Set<number>();
  for (const c of topo.cpus) if (c.online && c.package !== null) s.add(c.package);
  return [...s].sort((a, b) => a - b);
}

/** Physical cores: distinct (package, die, core) among online CPUs. */
export function physicalCores(cpus: readonly Cpu[]): number {
  const s = new Set<string>();
  for (const c of cpus) if (c.online) s.add(`${c.package}/${c.die}/${c.core ?? `cpu${c.id}`}`);
  return s.size;
}

const CPU_INDEX = new WeakMap<readonly Cpu[], ReadonlyMap<CpuId, Cpu>>();

/**
 * The machine's CPUs by id, built once per CPU list (a view asks per node and per cache level:
 * 32 nodes x 1,792 CPUs a map each on a large machine). A list that changed length is indexed again.
 */
export function cpuById(topo: Topology): ReadonlyMap<CpuId, Cpu> {
  let index = CPU_INDEX.get(topo.cpus);
  if (index === undefined || index.size !== topo.cpus.length) {
    index = new Map(topo.cpus.map((c) => [c.id, c]));
    CPU_INDEX.set(topo.cpus, index);
  }
  return index;
}

export function cpusOfNode(topo: Topology, id: NodeId): Cpu[] {
  return topo.cpus.filter((c) => c.node === id);
}

/** The name hwloc and lstopo give a cache: L1d, L1i, L2, L3 ... */
export function cacheName(c: Cache): string {
  return `L${c.level}${c.type === 'Data' ? 'd' : c.type === 'Instruction' ? 'i' : ''}`;
}

/** Caches used by any of `cpus`, in Topology.caches' order. */
export function cachesOfCpus(topo: Topology, cpus: readonly CpuId[]): Cache[] {
  const ids = new Set(cpus);
  return topo.caches.filter((c) => c.cpus.some((x) => ids.has(x)));
}

/**
 * CPU -> the CPUs sharing its last-level cache of level 3 or more (Cpu.l3: an L3, or an L4
 * where one exists); CPUs without such a cache are absent. The one rule for "the L3".
 */
export function l3ByCpu(caches: readonly Cache[]): Map<CpuId, CpuId[]> {
  const level = new Map<CpuId, number>();
  const out = new Map<CpuId, CpuId[]>();
  for (const c of caches) {
    if (c.type === 'Instruction' || c.level < 3) continue;
    for (const cpu of c.cpus) {
      if ((level.get(cpu) ?? 0) >= c.level) continue;
      level.set(cpu, c.level);
      out.set(cpu, c.cpus);
    }
  }
  return out;
}

/** `cpus` grouped by the L3 each uses (`l3Of`), in CPU order; CPUs of no known L3 are left out. */
export function groupByL3(cpus: readonly CpuId[], l3Of: (cpu: CpuId) => readonly CpuId[] | undefined): CpuId[][] {
  const groups = new Map<string, CpuId[]>();
  // CPUs of one cache share its list: joined once (56 CPUs of an L3 on a large machine).
  const keys = new Map<readonly CpuId[], string>();
  for (const id of cpus) {
    const l3 = l3Of(id);
    if (l3 === undefined || l3.length === 0) continue;
    const k = keys.get(l3) ?? keys.set(l3, l3.join(',')).get(l3)!;
    (groups.get(k) ?? groups.set(k, []).get(k)!).push(id);
  }
  return [...groups.values()].map((g) => g.sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);
}

/**
 * The L3 groups of `cpus` (EPYC's CCX or CCD, a Xeon socket, a sub-NUMA cluster): the CPUs of
 * each last-level cache of level 3 or more, restricted to `cpus`, in CPU order. [] when the
 * caches are unknown or no cache of level 3 or more exists.
 */
export function l3Groups(topo: Topology, cpus: readonly CpuId[]): CpuId[][] {
  const byId = cpuById(topo);
  return groupByL3(cpus, (id) => byId.get(id)?.l3);
}
