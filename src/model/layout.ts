// The node layout of a socket, named from the topology: Intel's sub-NUMA clustering (SNC2/SNC4:
// a socket's cores and memory controllers split into nodes that still share one L3), AMD's
// NUMA nodes per socket (NPS1/2/4: memory channels split, each node holding several CCX L3s)
// and AMD's "L3 as NUMA" (one node per L3). The signs, in order: CPU nodes per package; whether
// an L3 spans several nodes (SNC) or stays inside one (NPS, L3 as NUMA); L3s per node; the
// vendor from cpuinfo where the shape alone cannot tell; the distances inside and across
// packages for the words. Pure.
import { cpuById, l3Groups, type Topology } from './topology.js';

export type LayoutKind = 'socket' | 'snc' | 'nps' | 'l3' | 'sub-socket';
export type Vendor = 'intel' | 'amd' | null;

export interface NodeLayout {
  readonly kind: LayoutKind;
  /** "SNC2", "NPS4", "L3 as NUMA", "NPS1", "one node per socket", "2 nodes per socket". */
  readonly name: string;
  readonly nodesPerPackage: number;
  /** L3s per CPU node (the most any node has); null when the caches are unknown. */
  readonly l3PerNode: number | null;
  readonly vendor: Vendor;
  /** Smallest distance between nodes of one package, and between packages; null when none. */
  readonly inPackage: number | null;
  readonly acrossPackages: number | null;
  /** What the layout wants: bind per node, or per socket. */
  readonly bind: 'node' | 'socket';
  readonly advice: string;
}

export function vendorOf(t: Topology): Vendor {
  const models = Object.values(t.kernel.cpuModels?.value ?? {});
  if (models.some((m) => /\bintel\b/i.test(m))) return 'intel';
  if (models.some((m) => /\b(amd|epyc|ryzen|threadripper)\b/i.test(m))) return 'amd';
  return null;
}

interface Shape {
  readonly perPackage: number;
  readonly l3PerNode: number | null;
  /** An L3 whose CPUs lie on more than one node. */
  readonly l3Spans: boolean;
  readonly inPackage: number | null;
  readonly acrossPackages: number | null;
}

/** package -> its CPU nodes, from online CPUs; null when a node's CPUs sit in several packages. */
function nodesByPackage(t: Topology): Map<number, Set<number>> | null {
  const byPkg = new Map<number, Set<number>>();
  const pkgOfNode = new Map<number, number>();
  for (const c of t.cpus) {
    if (!c.online || c.package === null || c.node === null) continue;
    if ((pkgOfNode.get(c.node) ?? c.package) !== c.package) return null;
    pkgOfNode.set(c.node, c.package);
    (byPkg.get(c.package) ?? byPkg.set(c.package, new Set()).get(c.package)!).add(c.node);
  }
  return byPkg;
}

function distances(t: Topology, byPkg: Map<number, Set<number>>): Pick<Shape, 'inPackage' | 'acrossPackages'> {
  const pkgOf = new Map<number, number>();
  for (const [p, ns] of byPkg) for (const n of ns) pkgOf.set(n, p);
  let inPackage: number | null = null;
  let acrossPackages: number | null = null;
  for (const a of t.nodes)
    for (const b of t.nodes) {
      const d = a.distances[b.id];
      if (a.id === b.id || d === undefined || !pkgOf.has(a.id) || !pkgOf.has(b.id)) continue;
      if (pkgOf.get(a.id) === pkgOf.get(b.id)) inPackage = Math.min(inPackage ?? d, d);
      else acrossPackages = Math.min(acrossPackages ?? d, d);
    }
  return { inPackage, acrossPackages };
}

function shapeOf(t: Topology): Shape | null {
  const byPkg = nodesByPackage(t);
  if (byPkg === null || byPkg.size === 0) return null;
  const counts = [...byPkg.values()].map((s) => s.size);
  const byId = cpuById(t);
  let l3PerNode: number | null = null;
  let l3Spans = false;
  for (const n of t.nodes) {
    if (n.cpus.length === 0) continue;
    const groups = l3Groups(t, n.cpus);
    if (groups.length === 0) continue;
    l3PerNode = Math.max(l3PerNode ?? 0, groups.length);
    for (const g of groups) {
      const whole = byId.get(g[0]!)?.l3 ?? [];
      if (whole.some((c) => byId.get(c)?.node !== n.id)) l3Spans = true;
    }
  }
  return { perPackage: Math.max(...counts), l3PerNode, l3Spans, ...distances(t, byPkg) };
}

const near = (s: Shape) =>
  s.inPackage === null
    ? ''
    : ` (distance ${s.inPackage} inside a socket${s.acrossPackages === null ? '' : `, ${s.acrossPackages} across`})`;

function advise(kind: LayoutKind, name: string, s: Shape): string {
  const k = s.perPackage;
  switch (kind) {
    case 'socket':
      return 'one node per socket: bind per socket, which is per node (CPUs and memory together)';
    case 'snc':
      return `${name}: each socket split into ${k} nodes that share its L3${near(s)}; bind per node when the work fits a node's memory (its own memory controllers, lowest latency), per socket (its ${k} nodes, memory interleaved over them) when it needs the whole socket's bandwidth or cache`;
    case 'nps':
      return `${name}: each socket's memory channels split into ${k} nodes of ${s.l3PerNode ?? 'several'} L3s${near(s)}; bind per node for bandwidth in node-sized pieces; a process larger than a node: bind per socket and interleave its ${k} nodes`;
    case 'l3':
      return `${name}: one node per L3 (CCX or CCD)${near(s)}; bind per node so threads that share data share an L3 and its nearest memory; spread a large process over the socket's nodes with interleave`;
    case 'sub-socket':
      return `${k} nodes per socket${near(s)}: bind per node when the work fits a node, per socket when it needs the socket's bandwidth`;
  }
}

function classify(s: Shape, vendor: Vendor): { kind: LayoutKind; name: string } {
  const k = s.perPackage;
  if (k === 1) return { kind: 'socket', name: vendor === 'amd' ? 'NPS1' : 'one node per socket' };
  if (s.l3Spans || (vendor === 'intel' && s.l3PerNode !== null && s.l3PerNode <= 1))
    return { kind: 'snc', name: `SNC${k}` };
  // NPS has at most 4 nodes a socket: more, each with one L3, is L3 as NUMA.
  if (s.l3PerNode === 1 && (k > 4 || vendor === 'amd')) return { kind: 'l3', name: 'L3 as NUMA' };
  if (s.l3PerNode !== null && s.l3PerNode > 1 && k <= 4) return { kind: 'nps', name: `NPS${k}` };
  if (vendor === 'intel') return { kind: 'snc', name: `SNC${k}` };
  if (vendor === 'amd' && k <= 4) return { kind: 'nps', name: `NPS${k}` };
  return { kind: 'sub-socket', name: `${k} nodes per socket` };
}

/** The layout of this machine's sockets; null with no CPU nodes or a node spread over packages. */
export function nodeLayout(t: Topology): NodeLayout | null {
  const s = shapeOf(t);
  if (s === null) return null;
  const vendor = vendorOf(t);
  const { kind, name } = classify(s, vendor);
  return {
    kind,
    name,
    nodesPerPackage: s.perPackage,
    l3PerNode: s.l3PerNode,
    vendor,
    inPackage: s.inPackage,
    acrossPackages: s.acrossPackages,
    bind: kind === 'socket' ? 'socket' : 'node',
    advice: advise(kind, name, s),
  };
}
