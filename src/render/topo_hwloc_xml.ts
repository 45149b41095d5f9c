// `numakit topo --xml`: the topology as hwloc v2 XML (what lstopo --input, hwloc-calc, MPI
// launchers and Slurm read). Built the way hwloc's own Linux discovery builds its tree:
//   - CPU-side objects: Machine, Package, Die (only where a package has several), the caches
//     (L3Cache, L2Cache, L1Cache data, L1iCache), Core, PU; each goes under the smallest object
//     whose cpuset holds it, and of two with the same cpuset the bigger type is the parent
//     (L2 above L1d above L1i above Core, as lstopo shows "L2 + L1d + L1i + Core");
//   - a NUMANode is a memory child of the biggest object whose cpuset is its locality (its CPUs;
//     a CPU-less node: its HMAT initiators' CPUs, else the whole machine), and of a Group made
//     for it when no object has that cpuset (EPYC NPS4: a node of two CCX);
//   - Groups of NUMA nodes close to each other by distance (distanceGroups), as hwloc makes them;
//   - the SLIT as the NUMANode distances2 matrix ("NUMALatency", os indexing).
// Offline CPUs are in complete_cpuset only; CPUs outside numakit's cgroup cpuset are left out of
// allowed_cpuset (lstopo hides them, as it hides them on the machine). Devices are not written
// (hwloc's I/O tree filters PCI functions by class and numakit keeps only the NUMA-relevant
// ones): `lstopo --input FILE --no-io` is the comparison. Pure.
import { cacheName, type Cache, type Topology } from '../model/topology.js';

/** hwloc's bitmap text: 32-bit words, most significant first, "0x0" for an empty set. */
export function hwlocBitmap(ids: Iterable<number>): string {
  const words: number[] = [];
  for (const id of ids) {
    const w = Math.floor(id / 32);
    while (words.length <= w) words.push(0);
    words[w] = (words[w]! | (1 << (id % 32))) >>> 0;
  }
  if (words.length === 0) return '0x0';
  return words
    .reverse()
    .map((w, i) => (i > 0 && w === 0 ? '0x0' : `0x${w.toString(16).padStart(8, '0')}`))
    .join(',');
}

const xmlEsc = (s: string | number) =>
  String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Parent before child when cpusets are equal: hwloc's order of types. */
const RANK: Record<string, number> = {
  Machine: 0,
  Package: 1,
  Die: 2,
  Group: 3,
  L3Cache: 4,
  L2Cache: 5,
  L1Cache: 6,
  L1iCache: 7,
  Core: 8,
  PU: 9,
};

/** The objects hwloc attaches NUMA nodes to. */
const HOLDS_MEMORY = new Set(['Machine', 'Package', 'Die', 'Group']);

interface Obj {
  readonly type: string;
  readonly cpus: readonly number[];
  readonly attrs: Record<string, string | number>;
  readonly children: Obj[];
  readonly memory: NumaObj[];
}

interface NumaObj {
  readonly id: number;
  readonly cpus: readonly number[];
  readonly attrs: Record<string, string | number>;
  readonly pages: { size: number; count: number }[];
}

const key = (cpus: readonly number[]) => cpus.join(',');

function obj(type: string, cpus: readonly number[], attrs: Record<string, string | number> = {}): Obj {
  return { type, cpus: [...cpus].sort((a, b) => a - b), attrs, children: [], memory: [] };
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
function locality(t: Topology, id: number, machine: readonly number[]): number[] {
  const cpusOf = (nodes: readonly number[]) =>
    t.cpus.filter((c) => c.online && c.node !== null && nodes.includes(c.node)).map((c) => c.id);
  const own = cpusOf([id]);
  if (own.length > 0) return own;
  const node = t.nodes.find((n) => n.id === id);
  const init = cpusOf(node?.access?.initiators ?? []);
  if (init.length > 0) return init;
  // hwloc's fixup_cpuless_node_locality_from_distances: the nodes nearest it, unless it is no
  // farther from itself, or every other node is as near (then the whole machine).
  const self = node?.distances[id];
  const others = t.nodes.filter((n) => n.id !== id);
  const dist = others.map((n) => node?.distances[n.id]);
  if (self !== undefined && others.length > 0 && dist.every((d) => d !== undefined)) {
    const min = Math.min(...(dist as number[]));
    const nearest = others.filter((_, i) => dist[i] === min).map((n) => n.id);
    const cpus = cpusOf(nearest);
    if (min > self && nearest.length < others.length && cpus.length > 0) return cpus;
  }
  return [...machine];
}

const contains = (big: readonly number[], small: readonly number[]) => {
  const s = new Set(big);
  return small.every((x) => s.has(x));
};

/**
 * hwloc's grouping of NUMA nodes by distance (hwloc__groups_by_distances, exact accuracy): nodes
 * joined, transitively, by the smallest distance between two of them form a group; with more
 * than one group and fewer groups than nodes each group is a Group object (its CPUs: its nodes'
 * localities), and the groups are grouped again by their average distances. An 8-node machine of
 * two 4-node sockets (12 inside, 32 across) gets two Groups; 10/12 everywhere (EPYC NPS4) none.
 */
export function distanceGroups(ids: readonly number[], dist: (a: number, b: number) => number | undefined): number[][] {
  const out: number[][] = [];
  let members: number[][] = ids.map((i) => [i]);
  let d = (a: number, b: number): number | undefined => dist(ids[a]!, ids[b]!);
  for (let level = 0; level < 8 && members.length > 2; level++) {
    const n = members.length;
    let min = Number.POSITIVE_INFINITY;
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        const v = d(a, b);
        if (a === b) continue;
        if (v === undefined) return out;
        min = Math.min(min, v);
      }
    const group = new Array<number>(n).fill(-1);
    let groups = 0;
    for (let a = 0; a < n; a++) {
      if (group[a] !== -1) continue;
      group[a] = groups;
      const queue = [a];
      while (queue.length > 0) {
        const x = queue.shift()!;
        for (let b = 0; b < n; b++)
          if (group[b] === -1 && d(x, b) === min) {
            group[b] = groups;
            queue.push(b);
          }
      }
      groups++;
    }
    if (groups === 1 || groups === n) break;
    const next: number[][] = Array.from({ length: groups }, () => []);
    const inGroup: number[][] = Array.from({ length: groups }, () => []);
    for (let a = 0; a < n; a++) {
      next[group[a]!]!.push(...members[a]!);
      inGroup[group[a]!]!.push(a);
    }
    out.push(...next.filter((g) => g.length > 1).map((g) => [...g].sort((x, y) => x - y)));
    const prev = d;
    d = (a: number, b: number) => {
      let sum = 0;
      for (const x of inGroup[a]!)
        for (const y of inGroup[b]!) {
          const v = prev(x, y);
          if (v === undefined) return undefined;
          sum += v;
        }
      return sum / (inGroup[a]!.length * inGroup[b]!.length);
    };
    members = next;
  }
  return out;
}

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

/** The object tree of `t`, NUMANodes attached. */
export function hwlocTree(t: Topology): Obj {
  const onlineCpus = t.cpus.filter((c) => c.online).map((c) => c.id);
  const online = new Set(onlineCpus);
  const machine = obj('Machine', onlineCpus, { os_index: 0 });
  const objs = [...cpuObjects(t), ...t.caches.map((c) => cacheObj(c, online)).filter((o): o is Obj => o !== null)];
  const localities = new Map(t.nodes.map((n) => [n.id, locality(t, n.id, onlineCpus)]));
  const cpusets = new Set([key(onlineCpus), ...objs.filter((o) => HOLDS_MEMORY.has(o.type)).map((o) => key(o.cpus))]);
  for (const cpus of localities.values()) {
    if (cpusets.has(key(cpus))) continue;
    cpusets.add(key(cpus));
    objs.push(obj('Group', cpus, { kind: 1001, subkind: 0 }));
  }
  // Groups of nodes by distance, unless an object already has their CPUs (hwloc merges them).
  const all = new Set([...cpusets, ...objs.map((o) => key(o.cpus))]);
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  for (const g of distanceGroups(
    t.nodes.map((n) => n.id),
    (a, b) => byId.get(a)?.distances[b],
  )) {
    const cpus = [...new Set(g.flatMap((id) => localities.get(id) ?? []))].sort((a, b) => a - b);
    if (cpus.length === 0 || all.has(key(cpus))) continue;
    all.add(key(cpus));
    objs.push(obj('Group', cpus, { kind: 1000, subkind: 0 }));
  }
  objs.sort((a, b) => b.cpus.length - a.cpus.length || RANK[a.type]! - RANK[b.type]! || a.cpus[0]! - b.cpus[0]!);
  for (const o of objs) insert(machine, o);
  for (const n of t.nodes) {
    const cpus = localities.get(n.id)!;
    // The deepest Machine, Package, Die or Group with that cpuset (hwloc attaches memory there,
    // never to a cache, core or PU: a node that is one L3 gets a Group above it).
    let at: Obj | undefined;
    const walk = (o: Obj) => {
      if (HOLDS_MEMORY.has(o.type) && key(o.cpus) === key(cpus)) at = o;
      for (const c of o.children) if (contains(c.cpus, cpus)) walk(c);
    };
    walk(machine);
    const pages = [
      { size: 4096, count: Math.floor((n.memTotalBytes ?? 0) / 4096) },
      ...n.hugepages.map((p) => ({ size: p.sizeKb * 1024, count: p.total })),
    ];
    (at ?? machine).memory.push({
      id: n.id,
      cpus,
      attrs: { os_index: n.id, local_memory: n.memTotalBytes ?? 0 },
      pages,
    });
  }
  const order = (o: Obj) => {
    o.children.sort((a, b) => a.cpus[0]! - b.cpus[0]! || RANK[a.type]! - RANK[b.type]!);
    o.memory.sort((a, b) => a.id - b.id);
    o.children.forEach(order);
  };
  order(machine);
  return machine;
}

function renderObj(
  o: Obj,
  nodesOf: (cpus: readonly number[]) => number[],
  gp: { next: number },
  pad: string,
): string[] {
  const sets = (cpus: readonly number[], nodes = nodesOf(cpus)) => {
    return `cpuset="${hwlocBitmap(cpus)}" complete_cpuset="${hwlocBitmap(cpus)}" nodeset="${hwlocBitmap(nodes)}" complete_nodeset="${hwlocBitmap(nodes)}"`;
  };
  const attrs = (a: Record<string, string | number>) =>
    Object.entries(a)
      .filter(([k]) => !k.startsWith('data-'))
      .map(([k, v]) => ` ${k}="${xmlEsc(v)}"`)
      .join('');
  const lines: string[] = [];
  const { os_index: osIndex, ...rest } = o.attrs;
  const idx = osIndex === undefined ? '' : ` os_index="${osIndex}"`;
  const open = `${pad}<object type="${o.type}"${idx} ${sets(o.cpus)} gp_index="${gp.next++}"${attrs(rest)}`;
  if (o.children.length === 0 && o.memory.length === 0) return [`${open}/>`];
  lines.push(`${open}>`);
  for (const m of o.memory) {
    lines.push(
      `${pad}  <object type="NUMANode" os_index="${m.id}" ${sets(m.cpus, [m.id])} gp_index="${gp.next++}" local_memory="${m.attrs.local_memory}">`,
      ...m.pages.map((p) => `${pad}    <page_type size="${p.size}" count="${p.count}"/>`),
      `${pad}  </object>`,
    );
  }
  for (const c of o.children) lines.push(...renderObj(c, nodesOf, gp, `${pad}  `));
  lines.push(`${pad}</object>`);
  return lines;
}

/** The NUMANode distances2 element: the SLIT in os indexing; none when a row is missing. */
function distances(t: Topology): string[] {
  const ids = t.nodes.map((n) => n.id);
  const rows = t.nodes.map((n) => ids.map((i) => n.distances[i]));
  if (ids.length < 2 || rows.some((r) => r.some((v) => v === undefined))) return [];
  const indexes = `${ids.join(' ')} `;
  const values = `${rows.flat().join(' ')} `;
  return [
    `  <distances2 type="NUMANode" nbobjs="${ids.length}" kind="5" name="NUMALatency" indexing="os">`,
    `    <indexes length="${indexes.length}">${indexes}</indexes>`,
    `    <u64values length="${values.length}">${values}</u64values>`,
    '  </distances2>',
  ];
}

export function renderHwlocXml(t: Topology): string {
  const root = hwlocTree(t);
  const nodeOfCpu = new Map<number, number>();
  for (const n of t.nodes) for (const c of n.cpus) nodeOfCpu.set(c, n.id);
  const memoryOnly = t.nodes.filter((n) => n.cpus.length === 0).map((n) => n.id);
  // An object's nodeset: the nodes of its CPUs, and a CPU-less node where the object holds its locality.
  const nodesOf = (cpus: readonly number[]) => {
    const s = new Set<number>();
    for (const c of cpus) {
      const n = nodeOfCpu.get(c);
      if (n !== undefined) s.add(n);
    }
    for (const id of memoryOnly) if (contains(cpus, locality(t, id, root.cpus))) s.add(id);
    return [...s].sort((a, b) => a - b);
  };
  const all = t.cpus.map((c) => c.id);
  const allowed = t.cpus.filter((c) => c.online && c.allowed).map((c) => c.id);
  const nodes = t.nodes.map((n) => n.id);
  const body = renderObj(root, nodesOf, { next: 1 }, '  ');
  // The machine's own attributes: its complete cpuset holds offline CPUs, its allowed ones only
  // what numakit's cgroup allows.
  body[0] = body[0]!.replace(
    /cpuset="[^"]*" complete_cpuset="[^"]*" nodeset="[^"]*" complete_nodeset="[^"]*"/,
    `cpuset="${hwlocBitmap(root.cpus)}" complete_cpuset="${hwlocBitmap(all)}" allowed_cpuset="${hwlocBitmap(allowed)}" nodeset="${hwlocBitmap(nodes)}" complete_nodeset="${hwlocBitmap(nodes)}" allowed_nodeset="${hwlocBitmap(nodes)}"`,
  );
  const info = [
    ['Backend', 'numakit'],
    ['OSName', 'Linux'],
    ...(t.kernel.kernelRelease.value !== null ? [['OSRelease', t.kernel.kernelRelease.value]] : []),
    ...(t.kernel.productName.value !== null ? [['DMIProductName', t.kernel.productName.value]] : []),
    ['ProcessName', 'numakit'],
  ].map(([k, v]) => `    <info name="${xmlEsc(k!)}" value="${xmlEsc(v!)}"/>`);
  const opened = body[0]!.endsWith('/>') ? [body[0]!.replace(/\/>$/, '>'), '  </object>'] : [body[0]!];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
    '<topology version="2.0">',
    opened[0]!,
    ...info,
    ...body.slice(1),
    ...opened.slice(1),
    ...distances(t),
    '</topology>',
    '',
  ].join('\n');
}
