// SysRoot -> Topology. Composes the sysfs readers; decides nothing beyond filling gaps the
// kernel leaves (absent files) with explicit nulls and warnings. Impossible values (MemFree
// above MemTotal, a device on a node the machine does not have) become warnings, not figures.
import { NumakitError } from '../model/errors.js';
import { l3ByCpu, type Device, type NumaNode, type Topology } from '../model/topology.js';
import { nodeLayout } from '../model/layout.js';
import { type CoreFiles, listCpuDirs, readCpuList } from '../sysfs/cpu_topology.js';
import { formatBytes } from '../model/bytes.js';
import { readDevices } from '../sysfs/devices.js';
import { readKernelFacts } from '../sysfs/kernel.js';
import { readMemoryTiers, readNodeAccess } from '../sysfs/node_access.js';
import { readInterleaveWeights } from '../sysfs/weighted_interleave.js';
import { readNodeDistance } from '../sysfs/node_distance.js';
import { readNodeHugepages } from '../sysfs/node_hugepages.js';
import { listNodeDirs, NODE_DIR, readNodeState } from '../sysfs/node_list.js';
import { readMeminfo, readNodeMeminfo } from '../sysfs/node_meminfo.js';
import { listDir } from '../sysfs/read.js';
import type { SysRoot } from '../sysfs/root.js';
import { nodeCpus, readCpuCaches, readCpus, readCpuSets, type CpuSets } from './cpus.js';

export interface DiscoverOptions {
  /** Skip the device scan (PCI, net, block): faster for commands that don't show devices. */
  readonly devices?: boolean;
  /**
   * Skip the caches (cpuN/cache; Topology.caches and Cpu.l3 then empty): views that do not show
   * them (numactl --hardware, the overview, doctor, top, k8s, bench, apply). Reading each cache
   * once is ~16 reads a core: 30-60 ms on a 512-CPU machine (a synthetic tree, at load 9).
   */
  readonly caches?: boolean;
  /**
   * Skip each core's files (thread_siblings_list, core_id, cluster_id; Cpu.siblings is the CPU
   * alone, core and cluster null), keeping packages and dies (read once each): doctor, whose
   * rules look at packages and nodes, never at cores.
   */
  readonly cores?: boolean;
  /** Filled with what each CPU's own core files said (CoreFiles), for hwloc's reader of the same files. */
  readonly record?: Map<number, CoreFiles>;
}

/** MemTotal and MemFree of a node's meminfo; MemFree above MemTotal is not believed. */
function memoryOf(
  id: number,
  meminfo: Record<string, number> | null,
  warnings: string[],
): { total: number | null; free: number | null } {
  const total = meminfo?.MemTotal ?? null;
  const free = meminfo?.MemFree ?? null;
  if (total !== null && free !== null && free > total) {
    warnings.push(`node ${id}: meminfo says MemFree ${free} > MemTotal ${total} bytes: free memory unknown`);
    return { total, free: null };
  }
  return { total, free };
}

function readNodes(root: SysRoot, ids: number[], sets: CpuSets, warnings: string[]): NumaNode[] {
  const hasCpu = readNodeState(root, 'has_cpu');
  const hasMem = readNodeState(root, 'has_memory');
  const hasNormal = readNodeState(root, 'has_normal_memory');
  const tiers = readMemoryTiers(root);
  const weights = readInterleaveWeights(root);
  const taken = new Set<number>();
  return ids.map((id) => {
    const cpus = nodeCpus(root, id, sets, taken, warnings);
    const meminfo = readNodeMeminfo(root, id);
    if (meminfo === null) warnings.push(`node ${id}: no meminfo (sys/devices/system/node/node${id}/meminfo absent)`);
    const row = readNodeDistance(root, id);
    const distances: Record<number, number> = {};
    if (row !== null && row.length === ids.length) ids.forEach((other, i) => (distances[other] = row[i]!));
    else if (row !== null)
      warnings.push(`node ${id}: distance has ${row.length} entries for ${ids.length} nodes; ignored`);
    const mem = memoryOf(id, meminfo, warnings);
    return {
      id,
      cpus,
      memTotalBytes: mem.total,
      memFreeBytes: mem.free,
      hasCpu: hasCpu ? hasCpu.includes(id) : cpus.length > 0,
      hasMemory: hasMem ? hasMem.includes(id) : (mem.total ?? 0) > 0,
      hasNormalMemory: hasNormal ? hasNormal.includes(id) : (mem.total ?? 0) > 0,
      distances,
      hugepages: readNodeHugepages(root, id),
      access: readNodeAccess(root, id),
      access1: readNodeAccess(root, id, 1),
      memoryTier: tiers.get(id) ?? null,
      ...(weights?.has(id) ? { interleaveWeight: weights.get(id)! } : {}),
    };
  });
}

/** A kernel without NUMA sysfs (CONFIG_NUMA=n, some containers): one node with everything. */
function singleNodeFallback(root: SysRoot, cpuIds: number[]): NumaNode {
  const mem = readMeminfo(root);
  return {
    id: 0,
    cpus: cpuIds,
    memTotalBytes: mem?.MemTotal ?? null,
    memFreeBytes: mem?.MemFree ?? null,
    hasCpu: cpuIds.length > 0,
    hasMemory: true,
    hasNormalMemory: true,
    distances: { 0: 10 },
    hugepages: [],
    access: null,
    access1: null,
    memoryTier: null,
  };
}

/** Node ids: the nodeN directories (libnuma and numactl --hardware count these), else node/online. */
function nodeIds(root: SysRoot): number[] {
  const dirIds = listNodeDirs(root);
  if (dirIds.length > 0) return dirIds;
  const online = readNodeState(root, 'online');
  if (
    online === null &&
    listDir(root, NODE_DIR) !== null &&
    readCpuList(root, 'online') === null &&
    listCpuDirs(root).length === 0
  ) {
    // A NUMA kernel's node directory, but no node in it and nothing else to go by.
    throw new NumakitError(
      `${root.label === '/' ? '' : `${root.label}: `}no readable node list: ${NODE_DIR} has no nodeN directory and no usable online file`,
    );
  }
  return online ?? [];
}

/** A device on a node the machine does not have is on an unknown node. */
function checkDeviceNodes(devices: Device[], nodes: NumaNode[], warnings: string[]): Device[] {
  const ids = new Set(nodes.map((n) => n.id));
  return devices.map((d) => {
    if (d.node === null || ids.has(d.node)) return d;
    warnings.push(`${d.kind} ${d.name}: numa_node ${d.node} is not a node of this machine: unknown node`);
    return { ...d, node: null };
  });
}

export function discoverTopology(root: SysRoot, opts: DiscoverOptions = {}): Topology {
  const warnings: string[] = [];
  const ids = nodeIds(root);
  const sets = readCpuSets(root);
  let nodes = readNodes(root, ids, sets, warnings);
  if (nodes.length === 0) {
    warnings.push('no NUMA information under sys/devices/system/node: treated as one node');
    const online = readCpuList(root, 'online') ?? sets.present ?? [];
    const present = new Set(sets.present ?? online);
    nodes = [
      singleNodeFallback(
        root,
        online.filter((c) => present.has(c)),
      ),
    ];
  }
  const fromNodes = new Map<number, number>();
  for (const n of nodes) for (const c of n.cpus) fromNodes.set(c, n.id);
  const { cpus, caches, possible, cpuset } = readCpus(
    root,
    sets,
    (id) => fromNodes.get(id) ?? sets.link(id) ?? (nodes.length === 1 ? nodes[0]!.id : null),
    {
      caches: opts.caches !== false,
      ...(opts.cores === false ? { cores: false } : {}),
      ...(opts.record === undefined ? {} : { record: opts.record }),
    },
  );
  const kernel = readKernelFacts(root);
  const devices = opts.devices === false ? [] : checkDeviceNodes(readDevices(root), nodes, warnings);
  for (const d of devices) {
    if (d.node === null && nodes.length > 1)
      warnings.push(`${d.kind} ${d.name}: unknown node (firmware gives no numa_node)`);
  }
  const machineTotal = kernel.memTotalBytes.value;
  const nodeTotal = nodes.reduce((s, n) => s + (n.memTotalBytes ?? 0), 0);
  if (
    machineTotal !== null &&
    nodeTotal > 0 &&
    nodes.every((n) => n.memTotalBytes !== null) &&
    Math.abs(machineTotal - nodeTotal) > machineTotal * 0.05
  ) {
    // Seen on VMs: memory hot-added or ballooned outside the node zones is missing from nodeN/meminfo.
    warnings.push(
      `node MemTotal adds up to ${formatBytes(nodeTotal)} but /proc/meminfo says ${formatBytes(machineTotal)}: totals are /proc/meminfo's, per-node figures nodeN/meminfo's, which miss memory hot-added or ballooned outside the nodes (VMs)`,
    );
  }
  return {
    nodes,
    cpus,
    devices,
    caches,
    possibleNodes: readNodeState(root, 'possible') ?? ids,
    possibleCpus: possible,
    kernel,
    cpuset,
    warnings,
  };
}

/**
 * The topology without caches, unless its sockets hold several nodes: then the L3s are read too,
 * since they tell SNC from NPS and L3 as NUMA (model/layout.ts). For views that otherwise skip
 * the caches (a large machine has thousands of cache files).
 */
export function discoverForLayout(root: SysRoot, opts: DiscoverOptions = {}): Topology {
  const t = discoverTopology(root, { ...opts, caches: false });
  const l = nodeLayout(t);
  if (l === null || l.nodesPerPackage <= 1) return t;
  // Only the caches are read again: the CPUs, nodes and devices are those just read.
  const caches = readCpuCaches(
    root,
    t.cpus.map((c) => c.id),
  );
  const l3 = l3ByCpu(caches);
  return { ...t, caches, cpus: t.cpus.map((c) => ({ ...c, l3: l3.get(c.id) ?? [] })) };
}
