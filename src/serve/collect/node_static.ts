// What each node is (CPUs, memory, tier), the SLIT distances between nodes as an info-style
// metric, and the huge page pools of each node and page size (nodeN/hugepages, read at every
// scrape: pools are resized at run time).
import type { HugePagePool, Topology } from '../../model/topology.js';
import { readNodeHugepages } from '../../sysfs/node_hugepages.js';
import { family, s, type Family, type Sample } from '../exposition.js';
import { guard, type CollectContext } from './context.js';

export interface NodePools {
  readonly node: number;
  readonly pools: readonly HugePagePool[];
}

export function readHugepages(c: CollectContext, t: Topology): NodePools[] {
  return t.nodes.map((n) => ({
    node: n.id,
    pools: guard(c, 'hugepages', () => readNodeHugepages(c.root, n.id)) ?? [],
  }));
}

export function topologyFamilies(t: Topology): Family[] {
  const info = t.nodes.map((n) =>
    s(1, {
      node: String(n.id),
      cpus: String(n.cpus.length),
      has_cpu: String(n.hasCpu),
      has_memory: String(n.hasMemory),
      memory_tier: n.memoryTier === null ? '' : String(n.memoryTier),
    }),
  );
  const dist = t.nodes.flatMap((n) =>
    Object.entries(n.distances).map(([peer, d]) => s(1, { node: String(n.id), peer, distance: String(d) })),
  );
  return [
    family(
      'numakit_node_info',
      'gauge',
      'A NUMA node: its CPU count, whether it has CPUs and memory (memory-only nodes: has_cpu="false"), its memory tier',
      info,
    ),
    family(
      'numakit_node_distance_info',
      'gauge',
      'SLIT distance from node to peer (nodeN/distance; 10 = local), as a label',
      dist,
    ),
  ];
}

export function hugepageFamilies(nodes: readonly NodePools[]): Family[] {
  const pages: Sample[] = [];
  const bytes: Sample[] = [];
  for (const n of nodes)
    for (const p of n.pools) {
      for (const [state, v] of [
        ['total', p.total],
        ['free', p.free],
        ['surplus', p.surplus],
      ] as const) {
        const labels = { node: String(n.node), size: `${p.sizeKb}kB`, state };
        pages.push(s(v, labels));
        bytes.push(s(v * p.sizeKb * 1024, labels));
      }
    }
  return [
    family(
      'numakit_node_hugepages',
      'gauge',
      "Huge pages of a node's pool of one page size (nodeN/hugepages/hugepages-SIZE/{nr,free,surplus}_hugepages)",
      pages,
    ),
    family('numakit_node_hugepages_bytes', 'gauge', 'The same pools in bytes', bytes),
  ];
}
