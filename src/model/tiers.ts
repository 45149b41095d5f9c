// Memory tiers as the kernel ranks them (sys/devices/virtual/memory_tiering/memory_tierN, 6.1+):
// a tier's id is its abstract distance divided by 128, so a lower id is faster memory. DRAM
// with CPUs sits in tier 4 (adistance 512, MEMTIER_ADISTANCE_DRAM); a node whose driver or
// firmware (HMAT, CXL CDAT) gives a larger abstract distance lands in a higher tier, and only
// then is it a demotion target and a promotion source (mm/memory-tiers.c). Pure.
import type { NodeAccess, NodeId, NumaNode, Topology } from './topology.js';

export interface MemoryTier {
  readonly id: number;
  readonly nodes: NodeId[];
}

/** The tiers the kernel reports, fastest first; [] when it reports none (before 6.1, no tiering). */
export function memoryTiers(t: Topology): MemoryTier[] {
  const byTier = new Map<number, NodeId[]>();
  for (const n of t.nodes)
    if (n.memoryTier !== null) (byTier.get(n.memoryTier) ?? byTier.set(n.memoryTier, []).get(n.memoryTier)!).push(n.id);
  return [...byTier].map(([id, nodes]) => ({ id, nodes: nodes.sort((a, b) => a - b) })).sort((a, b) => a.id - b.id);
}

const hasMemory = (n: NumaNode): boolean => (n.memTotalBytes ?? 0) > 0;

/** CPU-less nodes with memory (CXL expanders, PMEM as RAM, HBM). */
export function memoryOnly(t: Topology): NumaNode[] {
  return t.nodes.filter((n) => n.cpus.length === 0 && hasMemory(n));
}

/** The fastest tier holding a node with CPUs and memory (DRAM's tier); null when tiers are unknown. */
export function dramTier(t: Topology): number | null {
  const ids = t.nodes
    .filter((n) => n.cpus.length > 0 && hasMemory(n) && n.memoryTier !== null)
    .map((n) => n.memoryTier!);
  return ids.length === 0 ? null : Math.min(...ids);
}

export interface SlowerTier {
  /** Nodes with memory in a tier below DRAM's. */
  readonly nodes: NodeId[];
  /** 'tiers': from memory_tiering; 'cpu-less': the kernel reports no tiers, so CPU-less nodes are taken. */
  readonly source: 'tiers' | 'cpu-less';
}

/**
 * The nodes demotion can move pages to and promotion can take them from. Without tier files
 * (kernels before 6.1, where demotion targets came from distances to CPU-less nodes) the
 * memory-only nodes are the best guess.
 */
export function slowerTier(t: Topology): SlowerTier {
  const dram = dramTier(t);
  if (dram === null) return { nodes: memoryOnly(t).map((n) => n.id), source: 'cpu-less' };
  const nodes = t.nodes.filter((n) => hasMemory(n) && n.memoryTier !== null && n.memoryTier > dram).map((n) => n.id);
  return { nodes, source: 'tiers' };
}

/** Memory-only nodes the kernel put in DRAM's own tier: never demoted to, never promoted from. */
export function memoryOnlyInDramTier(t: Topology): NumaNode[] {
  const dram = dramTier(t);
  if (dram === null) return [];
  return memoryOnly(t).filter((n) => n.memoryTier === dram);
}

/** The HMAT figures numakit shows for a node: access0 (any initiator) else access1 (CPUs). */
export function nodeAccess(n: NumaNode): NodeAccess | null {
  return n.access ?? n.access1;
}

/**
 * The slowest write bandwidth among the slower tier's nodes (HMAT, MB/s), falling back to read
 * bandwidth where write is not given; null when any of them has neither (no HMAT).
 */
export function slowTierBandwidthMBps(t: Topology, nodes: readonly NodeId[]): number | null {
  if (nodes.length === 0) return null;
  let least = Number.POSITIVE_INFINITY;
  for (const id of nodes) {
    const a = t.nodes.find((n) => n.id === id);
    const x = a ? nodeAccess(a) : null;
    const bw = x?.writeBandwidthMBps ?? x?.readBandwidthMBps ?? null;
    if (bw === null) return null;
    least = Math.min(least, bw);
  }
  return least;
}
