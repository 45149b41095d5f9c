// SysRoot -> Topology. Composes the sysfs readers; decides nothing beyond filling gaps the
// kernel leaves (absent files) with explicit nulls and warnings.
import type { Cpu, NumaNode, Topology } from '../model/topology.js';
import { readCpuList, readCpuTopology, listCpuDirs, CPU_DIR, type KnownCpus } from '../sysfs/cpu_topology.js';
import { readDevices } from '../sysfs/devices.js';
import { readKernelFacts } from '../sysfs/kernel.js';
import { readMemoryTiers, readNodeAccess } from '../sysfs/node_access.js';
import { readNodeDistance } from '../sysfs/node_distance.js';
import { readNodeHugepages } from '../sysfs/node_hugepages.js';
import { listNodeDirs, readNodeCpulist, readNodeState } from '../sysfs/node_list.js';
import { readMeminfo, readNodeMeminfo } from '../sysfs/node_meminfo.js';
import { listNumbered } from '../sysfs/read.js';
import type { SysRoot } from '../sysfs/root.js';

export interface DiscoverOptions {
  /** Skip the device scan (PCI, net, block): faster for commands that don't show devices. */
  readonly devices?: boolean;
}

/** Node of each CPU from the cpuN/nodeM links (kept for offline CPUs, unlike node cpulists). */
function cpuNodeLinks(root: SysRoot, cpuIds: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const cpu of cpuIds) {
    const nodes = listNumbered(root, `${CPU_DIR}/cpu${cpu}`, 'node');
    if (nodes.length > 0) m.set(cpu, nodes[0]!);
  }
  return m;
}

function readNodes(root: SysRoot, ids: number[], warnings: string[]): NumaNode[] {
  const hasCpu = readNodeState(root, 'has_cpu');
  const hasMem = readNodeState(root, 'has_memory');
  const hasNormal = readNodeState(root, 'has_normal_memory');
  const tiers = readMemoryTiers(root);
  return ids.map((id) => {
    const cpus = readNodeCpulist(root, id) ?? [];
    const meminfo = readNodeMeminfo(root, id);
    if (meminfo === null) warnings.push(`node ${id}: no meminfo (sys/devices/system/node/node${id}/meminfo absent)`);
    const row = readNodeDistance(root, id);
    const distances: Record<number, number> = {};
    if (row !== null && row.length === ids.length) ids.forEach((other, i) => (distances[other] = row[i]!));
    else if (row !== null) warnings.push(`node ${id}: distance has ${row.length} entries for ${ids.length} nodes; ignored`);
    const total = meminfo?.MemTotal ?? null;
    return {
      id,
      cpus,
      memTotalBytes: total,
      memFreeBytes: meminfo?.MemFree ?? null,
      hasCpu: hasCpu ? hasCpu.includes(id) : cpus.length > 0,
      hasMemory: hasMem ? hasMem.includes(id) : (total ?? 0) > 0,
      hasNormalMemory: hasNormal ? hasNormal.includes(id) : (total ?? 0) > 0,
      distances,
      hugepages: readNodeHugepages(root, id),
      access: readNodeAccess(root, id),
      memoryTier: tiers.get(id) ?? null,
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
    memoryTier: null,
  };
}

/**
 * What a CPU shares with CPUs read before it: its core's ids (a thread sibling has the same
 * package, die, cluster and core) and its last-level cache (shared_cpu_list is symmetric). On a
 * 2-socket SMT server this halves the per-CPU reads and reads each L3 once, not per CPU. Off
 * while a snapshot records what it reads, so a snapshot holds every CPU's files.
 */
function sharedTopology(root: SysRoot): KnownCpus | undefined {
  return root.onAccess === undefined ? new Map() : undefined;
}

function readCpus(root: SysRoot, nodes: NumaNode[]): { cpus: Cpu[]; possible: number[] } {
  const dirs = listCpuDirs(root);
  const possible = readCpuList(root, 'possible') ?? dirs;
  const online = readCpuList(root, 'online');
  const fromNodes = new Map<number, number>();
  for (const n of nodes) for (const c of n.cpus) fromNodes.set(c, n.id);
  // A CPU's nodeN link is read only when no node's cpulist names it (offline CPUs on some kernels).
  const links = cpuNodeLinks(root, dirs.filter((c) => !fromNodes.has(c)));
  const known = sharedTopology(root);
  const cpus = dirs.map((id): Cpu => {
    const t = readCpuTopology(root, id, known === undefined ? {} : { known, ...(online ? { online: online.includes(id) } : {}) });
    return {
      ...t,
      online: online ? online.includes(id) : t.online,
      node: fromNodes.get(id) ?? links.get(id) ?? (nodes.length === 1 ? nodes[0]!.id : null),
    };
  });
  return { cpus, possible };
}

export function discoverTopology(root: SysRoot, opts: DiscoverOptions = {}): Topology {
  const warnings: string[] = [];
  const dirIds = listNodeDirs(root);
  // libnuma (and so numactl --hardware) counts every nodeN directory; node/online agrees on
  // a running system. Use the directories, falling back to online when they can't be listed.
  const ids = dirIds.length > 0 ? dirIds : (readNodeState(root, 'online') ?? []);
  let nodes = readNodes(root, ids, warnings);
  if (nodes.length === 0) {
    warnings.push('no NUMA information under sys/devices/system/node: treated as one node');
    nodes = [singleNodeFallback(root, readCpuList(root, 'online') ?? listCpuDirs(root))];
  }
  const { cpus, possible } = readCpus(root, nodes);
  const kernel = readKernelFacts(root);
  const devices = opts.devices === false ? [] : readDevices(root);
  for (const d of devices) {
    if (d.node === null && nodes.length > 1) warnings.push(`${d.kind} ${d.name}: node unknown (numa_node is -1 or absent)`);
  }
  const machineTotal = kernel.memTotalBytes.value;
  const nodeTotal = nodes.reduce((s, n) => s + (n.memTotalBytes ?? 0), 0);
  if (machineTotal !== null && nodeTotal > 0 && nodes.every((n) => n.memTotalBytes !== null) && Math.abs(machineTotal - nodeTotal) > machineTotal * 0.05) {
    // Seen on VMs: memory hot-added or ballooned outside the node zones is missing from nodeN/meminfo.
    const gib = (b: number) => (b / 2 ** 30).toFixed(1);
    warnings.push(`node MemTotal adds up to ${gib(nodeTotal)} GiB but proc/meminfo says ${gib(machineTotal)} GiB: per-node figures cover only part of memory`);
  }
  return {
    nodes,
    cpus,
    devices,
    possibleNodes: readNodeState(root, 'possible') ?? ids,
    possibleCpus: possible,
    kernel,
    warnings,
  };
}
