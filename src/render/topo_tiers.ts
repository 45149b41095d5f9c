// The memory tiers and HMAT figures in `numakit topo`: per node, what firmware says its memory
// costs (nodeN/access0 and access1); after the nodes, the tiers fastest first, each with its
// nodes, and a memory-only node the kernel ranks with DRAM called out (it is not a slower tier).
import { formatCpuList } from '../model/cpuset.js';
import { dramTier, memoryOnlyInDramTier, memoryTiers } from '../model/tiers.js';
import type { NodeAccess, NumaNode, Topology } from '../model/topology.js';

const num = (x: number | null, unit: string) => (x === null ? '?' : `${x} ${unit}`);

/** "read 30 ns, 6667 MB/s; write 30 ns, 6250 MB/s". */
export function accessText(a: NodeAccess): string {
  return `read ${num(a.readLatencyNs, 'ns')}, ${num(a.readBandwidthMBps, 'MB/s')}; write ${num(a.writeLatencyNs, 'ns')}, ${num(a.writeBandwidthMBps, 'MB/s')}`;
}

const same = (a: NodeAccess, b: NodeAccess) => JSON.stringify(a) === JSON.stringify(b);

/** The node's HMAT lines: access0, and access1 (CPU initiators) where it says something else. */
export function hmatLines(n: NumaNode): string[] {
  const out: string[] = [];
  const from = (a: NodeAccess) => (a.initiators.length > 0 ? ` from node ${formatCpuList(a.initiators)}` : '');
  if (n.access) out.push(`HMAT${from(n.access)}: ${accessText(n.access)}`);
  if (n.access1 && (n.access === null || !same(n.access, n.access1)))
    out.push(`HMAT from CPUs${from(n.access1)}: ${accessText(n.access1)}`);
  return out;
}

/** The tier section; [] when the kernel reports no tiers. */
export function tierLines(t: Topology): string[] {
  const tiers = memoryTiers(t);
  if (tiers.length === 0) return [];
  const dram = dramTier(t);
  const out = ['memory tiers (fastest first):'];
  for (const tier of tiers) {
    const nodes = tier.nodes.map((id) => t.nodes.find((n) => n.id === id)!);
    const cpuLess = nodes.filter((n) => n.cpus.length === 0).map((n) => n.id);
    const kind =
      tier.id === dram ? "DRAM's tier" : dram !== null && tier.id > dram ? 'slower than DRAM' : 'faster than DRAM';
    const only = cpuLess.length > 0 ? `; memory-only: ${formatCpuList(cpuLess)}` : '';
    out.push(
      `  tier ${tier.id}: node${tier.nodes.length > 1 ? 's' : ''} ${formatCpuList(tier.nodes)} (${kind}${only})`,
    );
  }
  for (const n of memoryOnlyInDramTier(t))
    out.push(
      `  ! memory-only node ${n.id} shares DRAM's tier ${n.memoryTier}: nothing is demoted to it or promoted from it (no abstract distance from HMAT/CDAT; numakit doctor says more)`,
    );
  return out;
}

/** The tiers as JSON: id, nodes, and how each ranks against DRAM. */
export function tiersToJson(t: Topology): object[] {
  const dram = dramTier(t);
  return memoryTiers(t).map((tier) => ({
    id: tier.id,
    nodes: tier.nodes,
    rank: tier.id === dram ? 'dram' : dram !== null && tier.id > dram ? 'slower' : 'faster',
  }));
}
