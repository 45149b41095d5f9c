// The object tree of `numakit topo --xml` (topo_hwloc_xml.ts renders it), built the way hwloc's
// own Linux discovery builds its tree (docs/topo.md, "hwloc XML"):
//   - CPU-side objects from hwloc's mask files (hwloc_cpu_objects.ts), else from the topology's
//     ids; each goes under the smallest object whose cpuset holds it, and of two with the same
//     cpuset the bigger type is the parent (L2 above L1d above L1i above Core);
//   - a NUMANode is a memory child of the first object, going down, whose cpuset is its locality,
//     else of a memory Group made for it; a CPU-less node nothing places gets a Group of no CPUs;
//   - Groups of NUMA nodes close to each other by distance (hwloc_groups.ts), level by level.
// Pure.
import { cacheName, type Cache, type NumaNode, type Topology } from '../model/topology.js';
import { distanceGroups } from './hwloc_groups.js';
import type { HwlocCpu } from '../model/hwloc_io.js';
import { hwlocCpuObjects } from './hwloc_cpu_objects.js';
import type { IoObj } from './hwloc_io_tree.js';

/** Parent before child when cpusets are equal: hwloc's order of types. */
const RANK: Record<string, number> = {
  Machine: 0,
  Package: 1,
  Die: 2,
  Group: 3,
  L5Cache: 4,
  L4Cache: 4.1,
  L3Cache: 4.2,
  L3iCache: 4.3,
  L2Cache: 5,
  L2iCache: 5.1,
  L1Cache: 6,
  L1iCache: 7,
  Core: 8,
  PU: 9,
};

export interface Obj {
  readonly type: string;
  readonly cpus: readonly number[];
  readonly attrs: Record<string, string | number>;
  readonly children: Obj[];
  readonly memory: NumaObj[];
  /** I/O children: host bridges, PCI functions, OS devices (hwloc_io_tree.ts). */
  readonly io: IoObj[];
  /** Info pairs (a Package's CPU model). */
  readonly infos: (readonly [string, string])[];
}

export interface NumaObj {
  readonly id: number;
  readonly cpus: readonly number[];
  readonly attrs: Record<string, string | number>;
  readonly pages: { size: number; count: number }[];
}

const key = (cpus: readonly number[]) => cpus.join(',');

function obj(type: string, cpus: readonly number[], attrs: Record<string, string | number> = {}): Obj {
  return { type, cpus: [...cpus].sort((a, b) => a - b), attrs, children: [], memory: [], io: [], infos: [] };
}

function cacheObj(c: Cache, online: ReadonlySet<number>): Obj | null {
  const cpus = c.cpus.filter((x) => online.has(x));
  if (cpus.length === 0) return null;
  const type = c.level === 1 && c.type === 'Instruction' ? 'L1iCache' : `L${c.level}Cache`;
  if (c.level > 5 || (c.type === 'Instruction' && c.level !== 1)) return null; // hwloc has no L2i ... types
  return obj(type, cpus, {
    cache_size: c.sizeBytes ?? 0,
    depth: c.level,
    cache_linesize: 0,
    cache_associativity: 0,
    cache_type: c.type === 'Unified' ? 0 : c.type === 'Data' ? 1 : 2,
    'data-name': cacheName(c),
  });
}

/** Package, Die (where a package has several), Core and PU objects of the online CPUs. */
function cpuObjects(t: Topology): Obj[] {
  const out: Obj[] = [];
  const online = t.cpus.filter((c) => c.online);
  const groupBy = (f: (c: (typeof online)[number]) => string | null) => {
    const m = new Map<string, number[]>();
    for (const c of online) {
      const k = f(c);
      if (k !== null) (m.get(k) ?? m.set(k, []).get(k)!).push(c.id);
    }
    return m;
  };
  const packages = groupBy((c) => (c.package === null || c.package < 0 ? null : String(c.package)));
  for (const [p, cpus] of packages) out.push(obj('Package', cpus, { os_index: p }));
  const dies = groupBy((c) => (c.package === null || c.die === null || c.die < 0 ? null : `${c.package}/${c.die}`));
  const diesPerPackage = new Map<string, number>();
  for (const k of dies.keys()) diesPerPackage.set(k.split('/')[0]!, (diesPerPackage.get(k.split('/')[0]!) ?? 0) + 1);
  for (const [k, cpus] of dies)
    if ((diesPerPackage.get(k.split('/')[0]!) ?? 0) > 1) out.push(obj('Die', cpus, { os_index: k.split('/')[1]! }));
  const cores = groupBy((c) => (c.core === null || c.core < 0 ? `cpu${c.id}` : `${c.package}/${c.die}/${c.core}`));
  for (const [k, cpus] of cores) {
    const core = Number(k.split('/').at(-1));
    out.push(obj('Core', cpus, Number.isNaN(core) ? {} : { os_index: core }));
  }
  for (const c of online) out.push(obj('PU', [c.id], { os_index: c.id }));
  return out;
}

/**
 * A node's locality, as hwloc's Linux discovery finds it: its online CPUs; for a CPU-less node
 * its HMAT initiators' CPUs (access0/initiators), else those of the CPU nodes nearest it by
 * SLIT distance (all of them on a tie, none when every other node is as near), else the machine.
 */
export function locality(t: Topology, id: number, machine: readonly number[]): number[] {
  return localityOf(t, id)?.cpus ?? [...machine];
}

/** A node's locality, or null when nothing places it (hwloc then hangs it off the machine). */
function localityOf(t: Topology, id: number): { cpus: number[] } | null {
  const cpusOf = (nodes: readonly number[]) =>
    t.cpus.filter((c) => c.online && c.node !== null && nodes.includes(c.node)).map((c) => c.id);
  const own = cpusOf([id]);
  if (own.length > 0) return { cpus: own };
  const node = t.nodes.find((n) => n.id === id);
  const init = cpusOf(node?.access?.initiators ?? []);
  if (init.length > 0) return { cpus: init };
  // hwloc's fixup_cpuless_node_locality_from_distances: the nodes nearest it, unless it is no
  // farther from itself, or every other node is as near (then the whole machine).
  const self = node?.distances[id];
  const others = t.nodes.filter((n) => n.id !== id);
  const dist = others.map((n) => node?.distances[n.id]);
  if (self !== undefined && others.length > 0 && dist.every((d) => d !== undefined)) {
    const min = Math.min(...(dist as number[]));
    const nearest = others.filter((_, i) => dist[i] === min).map((n) => n.id);
    const cpus = cpusOf(nearest);
    if (min > self && nearest.length < others.length && cpus.length > 0) return { cpus };
  }
  return null;
}

/** Sets of the cpusets asked about, made once per array (a 512-CPU tree asks ~10^5 times). */
const asSet = new WeakMap<readonly number[], ReadonlySet<number>>();

export const contains = (big: readonly number[], small: readonly number[]) => {
  let s = asSet.get(big);
  if (s === undefined) asSet.set(big, (s = new Set(big)));
  // Objects nest or are disjoint (caches, cores, packages): the first CPU rules most out.
  return small.length === 0 || (s.has(small[0]!) && small.every((x) => s.has(x)));
};

/** Puts `o` under the deepest object of `root` whose cpuset holds it. */
function insert(root: Obj, o: Obj): void {
  let at = root;
  for (;;) {
    const next = at.children.find((c) => contains(c.cpus, o.cpus));
    if (next === undefined) break;
    at = next;
  }
  at.children.push(o);
}

/**
 * hwloc's memory parent: going down from the machine through the objects holding `cpus`, the
 * first whose cpuset is `cpus` (never a PU: its core), and never a distance Group the node is not
 * one of; else the deepest that holds them.
 */
function memoryParent(machine: Obj, cpus: readonly number[], node: number): Obj {
  const k = key(cpus);
  const outside = (o: Obj) =>
    o.attrs['data-nodes'] !== undefined && !String(o.attrs['data-nodes']).split(',').includes(String(node));
  let at = machine;
  for (;;) {
    const next = at.children.find((c) => contains(c.cpus, cpus) && !outside(c));
    if (next === undefined) return at;
    if (key(next.cpus) === k) return next.type === 'PU' ? at : next;
    at = next;
  }
}

/** The CPU side from hwloc's mask files, a cluster Group dropped where another object has its CPUs. */
function fromMasks(cpus: readonly HwlocCpu[]): Obj[] {
  const objs = hwlocCpuObjects(cpus).map((o) => obj(o.type, o.cpus, o.attrs));
  const others = new Set(objs.filter((o) => o.type !== 'Group').map((o) => key(o.cpus)));
  return objs.filter((o) => o.type !== 'Group' || !others.has(key(o.cpus)));
}

/**
 * A NUMANode attached to its memory parent, or, when nothing places it (`cpus` null), to a Group
 * of its own with no CPUs after the others, as hwloc does.
 */
function attachNode(machine: Obj, n: NumaNode, cpus: readonly number[] | null): void {
  let at: Obj;
  if (cpus === null) {
    at = obj('Group', [], { kind: 1001, subkind: 0 });
    machine.children.push(at);
  } else at = memoryParent(machine, cpus, n.id);
  // hwloc counts as normal pages what the huge page pools do not hold (hwloc_parse_hugepages_info).
  const huge = n.hugepages.reduce((sum, p) => sum + p.sizeKb * 1024 * p.total, 0);
  const pages = [
    { size: 4096, count: Math.floor(Math.max(0, (n.memTotalBytes ?? 0) - huge) / 4096) },
    ...n.hugepages.map((p) => ({ size: p.sizeKb * 1024, count: p.total })),
  ];
  at.memory.push({
    id: n.id,
    cpus: at.cpus,
    attrs: { os_index: n.id, local_memory: n.memTotalBytes ?? 0 },
    pages,
  });
}

/** Children by first CPU, objects without CPUs (CPU-less nodes' groups) last, as hwloc orders them; memory by node. */
function sortTree(o: Obj): void {
  const first = (x: Obj) => x.cpus[0] ?? Number.POSITIVE_INFINITY;
  o.children.sort((a, b) => first(a) - first(b) || RANK[a.type]! - RANK[b.type]!);
  o.memory.sort((a, b) => a.id - b.id);
  o.children.forEach(sortTree);
}

/**
 * The object tree of `t`, NUMANodes attached; its CPU side from hwloc's mask files when the tree
 * has them (`masks`), else from the topology's ids.
 */
export function hwlocTree(t: Topology, masks: readonly HwlocCpu[] | null = null): Obj {
  const onlineCpus = t.cpus.filter((c) => c.online).map((c) => c.id);
  const online = new Set(onlineCpus);
  const machine = obj('Machine', onlineCpus, { os_index: 0 });
  const objs =
    masks !== null
      ? fromMasks(masks)
      : [...cpuObjects(t), ...t.caches.map((c) => cacheObj(c, online)).filter((o): o is Obj => o !== null)];
  const placed = new Map(t.nodes.map((n) => [n.id, localityOf(t, n.id)?.cpus ?? null]));
  const localities = new Map(t.nodes.map((n) => [n.id, placed.get(n.id) ?? onlineCpus]));
  // A Group for a node whose CPUs no object has (hwloc's memory group): EPYC NPS4, a node of two L3.
  const cpusets = new Set([key(onlineCpus), ...objs.map((o) => key(o.cpus))]);
  for (const cpus of placed.values()) {
    if (cpus === null || cpusets.has(key(cpus))) continue;
    cpusets.add(key(cpus));
    objs.push(obj('Group', cpus, { kind: 1001, subkind: 0 }));
  }
  // Groups of nodes by distance, unless an object already has their CPUs and nodes (hwloc merges
  // them): an object's nodes are those whose locality lies inside its CPUs.
  const nodesIn = (cpus: readonly number[]) =>
    t.nodes
      .filter((n) => placed.get(n.id) !== null && contains(cpus, localities.get(n.id)!))
      .map((n) => n.id)
      .join(',');
  const all = new Set([
    `${key(onlineCpus)}/${t.nodes.map((n) => n.id).join(',')}`,
    ...objs.map((o) => `${key(o.cpus)}/${nodesIn(o.cpus)}`),
  ]);
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  for (const { nodes: g, level } of distanceGroups(
    t.nodes.map((n) => n.id),
    (a, b) => byId.get(a)?.distances[b],
  )) {
    const cpus = [...new Set(g.flatMap((id) => localities.get(id) ?? []))].sort((a, b) => a - b);
    const id = `${key(cpus)}/${nodesIn(cpus)}`;
    if (cpus.length === 0 || all.has(id)) continue;
    all.add(id);
    objs.push(obj('Group', cpus, { kind: 900, subkind: level, 'data-nodes': g.join(',') }));
  }
  objs.sort((a, b) => b.cpus.length - a.cpus.length || RANK[a.type]! - RANK[b.type]! || a.cpus[0]! - b.cpus[0]!);
  for (const o of objs) insert(machine, o);
  for (const n of t.nodes) attachNode(machine, n, placed.get(n.id) === null ? null : localities.get(n.id)!);
  sortTree(machine);
  return machine;
}
