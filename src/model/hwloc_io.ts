// The facts hwloc's Linux discovery reads beyond numakit's own topology, so that `topo --xml`
// is hwloc's view of the machine (docs/topo.md, "Equal to hwloc"): the machine's info pairs
// (DMI, OS, cgroup), the PCI functions of sys/bus/pci/devices and the OS devices of
// sys/class/{block,net,infiniband}, with the attributes hwloc gives them. Pure types.

/** A PCI bus id: domain, bus, device, function. */
export interface PciBusId {
  readonly domain: number;
  readonly bus: number;
  readonly dev: number;
  readonly func: number;
}

export interface PciFunction extends PciBusId {
  /** Class and subclass (the class file's top 16 bits), 0 when unknown. */
  readonly classId: number;
  readonly vendor: number;
  readonly device: number;
  readonly subVendor: number;
  readonly subDevice: number;
  /** From config space byte 8; 0xff when config cannot be read. */
  readonly revision: number;
  /** GB/s, as hwloc computes it in single precision (0 when unknown). */
  readonly linkSpeed: number;
  /** A PCI-to-PCI bridge's secondary and subordinate buses; null for a device. */
  readonly bridge: { readonly secondary: number; readonly subordinate: number } | null;
  /** local_cpus, null when absent or empty (hwloc then puts the bus under the machine). */
  readonly localCpus: readonly number[] | null;
  /** The slot (sys/bus/pci/slots/NAME/address) of its domain, bus and device, if any. */
  readonly slot: string | null;
}

/** hwloc's OS device types, numbered as in its XML (osdev_type). */
export const OSDEV_TYPE = { block: 0, gpu: 1, network: 2, openfabrics: 3, dma: 4, coproc: 5 } as const;
export type OsDeviceKind = keyof typeof OSDEV_TYPE;

export interface OsDevice {
  readonly name: string;
  readonly kind: OsDeviceKind;
  readonly subtype: string | null;
  readonly infos: readonly (readonly [string, string])[];
  /** The PCI function it belongs to (the last bus id on its sysfs path), or null. */
  readonly pci: PciBusId | null;
  /** Its device's numa_node (used when it has no PCI function), null when unknown. */
  readonly numaNode: number | null;
}

/**
 * What the shape of hwloc's tree of the machine depends on (its objects, their CPUs and nodes,
 * the I/O tree, memory-side caches): all that topo's text, JSON, SVG and HTML views show of it.
 */
export interface HwlocTreeFacts {
  readonly pci: readonly PciFunction[];
  readonly osDevices: readonly OsDevice[];
  /** Each processor's /proc/cpuinfo info pairs as hwloc keeps them (a Package shows its first CPU's). */
  readonly cpuInfo: ReadonlyMap<number, readonly (readonly [string, string])[]>;
  /**
   * The CPU topology from hwloc's mask files (topology/*_cpus, cache/index*), or null where a
   * tree lacks them (captures made before numakit recorded them): the topology's ids are used.
   */
  readonly cpus: readonly HwlocCpu[] | null;
  /** Each node's memory-side caches (nodeN/memory_side_cache/indexM), innermost first. */
  readonly memSideCaches: ReadonlyMap<number, readonly MemSideCache[]>;
  /** The NUMA nodes the cgroup cpuset allows (cpuset.mems), null when none restricts. */
  readonly allowedNodes: readonly number[] | null;
  /**
   * Whether hwloc finds the cgroup hierarchies (in /proc/self/mountinfo or /proc/mounts): where
   * neither exists (a capture without them) it restricts nothing, though numakit's other views
   * assume the systemd layout. Absent: true.
   */
  readonly cgroupMounts?: boolean;
}

/** The tree's facts and what hwloc's export adds to it: infos, CPU kinds, memory attributes, support. */
export interface HwlocFacts extends HwlocTreeFacts {
  /** The Machine object's info pairs, less Backend (the renderer adds it). */
  readonly machineInfo: readonly (readonly [string, string])[];
  /** Each online CPU's cpufreq cpuinfo_max_freq and base_frequency (MHz) and cpu_capacity. */
  readonly cpuKinds: readonly CpuKindValues[];
  /** Each node's HMAT access figures (access1, else access0), for hwloc's memory attributes. */
  readonly access: readonly NodeAccess[];
  /** The DMI memory devices (Misc MemoryModule objects): their entry index and strings. */
  readonly memoryModules: readonly { readonly index: number; readonly infos: readonly (readonly [string, string])[] }[];
  /** The running system (hwloc then also reports binding support). */
  readonly realRoot: boolean;
  /** Whether the tree has NUMA node directories (else hwloc makes one node and says it did not discover NUMA). Absent: true. */
  readonly numaDirs?: boolean;
}

export const pciBusIdText = (b: PciBusId) =>
  `${b.domain.toString(16).padStart(4, '0')}:${b.bus.toString(16).padStart(2, '0')}:${b.dev.toString(16).padStart(2, '0')}.${b.func.toString(16)}`;

/** One cpuN/cache/indexM as hwloc reads it. */
export interface HwlocCacheIndex {
  /** shared_cpu_map (empty when the kernel gives an empty map: hwloc then uses the core's). */
  readonly cpus: readonly number[];
  readonly level: number | null;
  readonly type: 'Data' | 'Instruction' | 'Unified';
  /** The `id` file: the cache's os_index. */
  readonly id: number | null;
  readonly sizeKb: number;
  readonly lineSize: number;
  readonly sets: number;
  readonly linesPerTag: number;
}

/**
 * What hwloc's Linux discovery reads of one online CPU with a topology directory: the masks of
 * each level (null when absent) with their ids (null, not read, where the mask is absent), and
 * its caches.
 */
export interface HwlocCpu {
  readonly id: number;
  readonly core: readonly number[] | null;
  readonly coreId: number | null;
  readonly cluster: readonly number[] | null;
  readonly clusterId: number | null;
  readonly die: readonly number[] | null;
  readonly dieId: number | null;
  readonly package: readonly number[] | null;
  readonly packageId: number | null;
  readonly caches: readonly HwlocCacheIndex[];
}

/** What hwloc ranks CPU kinds by (null where the file is absent or 0). */
export interface CpuKindValues {
  readonly id: number;
  readonly maxMHz: number | null;
  readonly baseMHz: number | null;
  readonly capacity: number | null;
}

/** nodeN/memory_side_cache/indexM: a cache in front of a node's memory (HMAT). */
export interface MemSideCache {
  readonly depth: number;
  readonly sizeBytes: number;
  readonly lineSize: number;
  /** 0 direct-mapped, 1 indexed (hashed), 2 custom. */
  readonly indexing: number;
}

/** nodeN/accessM/initiators: the nodes whose CPUs access it best, and how (null: no file). */
export interface NodeAccess {
  readonly node: number;
  readonly initiators: readonly number[];
  readonly readBandwidth: number | null;
  readonly writeBandwidth: number | null;
  readonly readLatency: number | null;
  readonly writeLatency: number | null;
}
