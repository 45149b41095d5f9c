// `numakit topo --xml`: hwloc's view of the machine as hwloc v2 XML (what lstopo --input,
// hwloc-calc, MPI launchers and Slurm read), equal to `lstopo --of xml` for the same tree after
// the canonical form of docs/topo.md: the object tree of hwloc_tree.ts with the I/O tree of
// hwloc_io_tree.ts, each object's cpusets and nodesets (the allowed part and all), NUMA nodes with
// memory, huge page pools and memory-side caches, the DMI memory modules, the SLIT as the
// NUMALatency matrix, HMAT memory attributes, CPU kinds and hwloc's support flags. Pure.
import type { Topology } from '../model/topology.js';
import type { HwlocFacts, HwlocTreeFacts, MemSideCache, NodeAccess } from '../model/hwloc_io.js';
import { cpuKinds } from './hwloc_cpukinds.js';
import { attachIo, type IoObj } from './hwloc_io_tree.js';
import { hwlocTree, type Obj } from './hwloc_tree.js';

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

export interface Ctx {
  /** Each object's complete nodeset (nodesets.ts's rule). */
  readonly nodeset: ReadonlyMap<Obj, readonly number[]>;
  readonly allowedCpus: ReadonlySet<number>;
  readonly allowedNodes: ReadonlySet<number>;
  readonly memSideCaches: ReadonlyMap<number, readonly MemSideCache[]>;
  readonly gp: { next: number };
  /** The gp_index each NUMANode was written with (memory attributes refer to it). */
  readonly gpOfNode: Map<number, number>;
}

/** An object's four sets: the allowed part of its CPUs and nodes, and all of them. */
function setsOf(cpus: readonly number[], nodes: readonly number[], ctx: Ctx): string {
  const cpuset = cpus.filter((c) => ctx.allowedCpus.has(c));
  const nodeset = nodes.filter((n) => ctx.allowedNodes.has(n));
  return `cpuset="${hwlocBitmap(cpuset)}" complete_cpuset="${hwlocBitmap(cpus)}" nodeset="${hwlocBitmap(nodeset)}" complete_nodeset="${hwlocBitmap(nodes)}"`;
}

function renderObj(o: Obj, ctx: Ctx, pad: string): string[] {
  const attrs = (a: Record<string, string | number>) =>
    Object.entries(a)
      .filter(([k]) => !k.startsWith('data-'))
      .map(([k, v]) => ` ${k}="${xmlEsc(v)}"`)
      .join('');
  const lines: string[] = [];
  const { os_index: osIndex, ...rest } = o.attrs;
  const idx = osIndex === undefined ? '' : ` os_index="${osIndex}"`;
  const sets = setsOf(o.cpus, ctx.nodeset.get(o) ?? [], ctx);
  const open = `${pad}<object type="${o.type}"${idx} ${sets} gp_index="${ctx.gp.next++}"${attrs(rest)}`;
  if (o.children.length === 0 && o.memory.length === 0 && o.io.length === 0 && o.infos.length === 0)
    return [`${open}/>`];
  lines.push(`${open}>`, ...infoLines(o.infos, `${pad}  `));
  for (const m of o.memory) {
    // Memory-side caches wrap the node, the outermost (highest depth) first.
    const caches = [...(ctx.memSideCaches.get(m.id) ?? [])].reverse();
    let p = `${pad}  `;
    for (const c of caches) {
      const attrs = `cache_size="${c.sizeBytes}" depth="${c.depth}" cache_linesize="${c.lineSize}" cache_associativity="${c.indexing === 0 ? 1 : 0}" cache_type="0"`;
      lines.push(`${p}<object type="MemCache" ${setsOf(m.cpus, [m.id], ctx)} gp_index="${ctx.gp.next++}" ${attrs}>`);
      p += '  ';
    }
    ctx.gpOfNode.set(m.id, ctx.gp.next);
    lines.push(
      `${p}<object type="NUMANode" os_index="${m.id}" ${setsOf(m.cpus, [m.id], ctx)} gp_index="${ctx.gp.next++}"${m.attrs.local_memory ? ` local_memory="${m.attrs.local_memory}"` : ''}>`,
      ...m.pages.map((pg) => `${p}  <page_type size="${pg.size}" count="${pg.count}"/>`),
      `${p}</object>`,
    );
    for (const _ of caches) {
      p = p.slice(2);
      lines.push(`${p}</object>`);
    }
  }
  for (const c of o.children) lines.push(...renderObj(c, ctx, `${pad}  `));
  for (const c of o.io) lines.push(...renderIo(c, ctx.gp, `${pad}  `));
  lines.push(`${pad}</object>`);
  return lines;
}

/**
 * hwloc's nodesets: an object holds the NUMA nodes attached at or below it and those attached to
 * its ancestors (a package's cores share its node, a CPU-less node attached there or to the
 * machine included); a node in a Group of no CPUs is in no other object's.
 */
function nodesets(root: Obj): Map<Obj, number[]> {
  const out = new Map<Obj, number[]>();
  const walk = (o: Obj, above: readonly number[]): number[] => {
    const here = [...above, ...o.memory.map((m) => m.id)];
    const below = o.children.flatMap((c) => walk(c, o.cpus.length === 0 ? [] : here));
    const ids = [...new Set([...here, ...below])].sort((a, b) => a - b);
    out.set(o, o.cpus.length === 0 ? o.memory.map((m) => m.id) : ids);
    return [...o.memory.map((m) => m.id), ...below];
  };
  walk(root, []);
  return out;
}

/**
 * Leaves out what the cgroup cpuset does not allow, as hwloc does: objects none of whose CPUs
 * is allowed and that hold no allowed NUMA node, and the NUMA nodes not allowed.
 */
function restrict(o: Obj, cpus: ReadonlySet<number>, nodes: ReadonlySet<number>): boolean {
  o.memory.splice(0, o.memory.length, ...o.memory.filter((m) => nodes.has(m.id)));
  o.children.splice(0, o.children.length, ...o.children.filter((c) => restrict(c, cpus, nodes)));
  return o.memory.length > 0 || o.children.length > 0 || o.cpus.some((c) => cpus.has(c));
}

const infoLines = (infos: readonly (readonly [string, string])[], pad: string) =>
  infos.map(([k, v]) => `${pad}<info name="${xmlEsc(k)}" value="${xmlEsc(v)}"/>`);

/** An I/O object (no cpusets: hwloc gives I/O objects none) and its children. */
function renderIo(o: IoObj, gp: { next: number }, pad: string): string[] {
  const attrs = Object.entries(o.attrs)
    .map(([k, v]) => ` ${k}="${xmlEsc(v)}"`)
    .join('');
  const open = `${pad}<object type="${o.type}" gp_index="${gp.next++}"${attrs}`;
  if (o.children.length === 0 && o.infos.length === 0) return [`${open}/>`];
  return [
    `${open}>`,
    ...infoLines(o.infos, `${pad}  `),
    ...o.children.flatMap((c) => renderIo(c, gp, `${pad}  `)),
    `${pad}</object>`,
  ];
}

/** The NUMANode distances2 element: the SLIT in os indexing; none when a row is missing. */
function distances(t: Topology, allowed: ReadonlySet<number>): string[] {
  // hwloc keeps the matrix of the nodes the cgroup allows.
  const kept = t.nodes.filter((n) => allowed.has(n.id));
  const ids = kept.map((n) => n.id);
  const rows = kept.map((n) => ids.map((i) => n.distances[i]));
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

/**
 * hwloc's memory attributes from the HMAT figures: read and write bandwidth and latency of each
 * node from its initiators' CPUs, and their averages (Bandwidth, Latency) where both are known.
 */
function memattrLines(access: readonly NodeAccess[], t: Topology, ctx: Ctx): string[] {
  const cpusOf = (nodes: readonly number[]) =>
    t.cpus.filter((c) => c.online && c.node !== null && nodes.includes(c.node)).map((c) => c.id);
  const avg = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.floor((a + b) / 2));
  const attrs: [string, number, (a: NodeAccess) => number | null][] = [
    ['Bandwidth', 5, (a) => avg(a.readBandwidth, a.writeBandwidth)],
    ['Latency', 6, (a) => avg(a.readLatency, a.writeLatency)],
    ['ReadBandwidth', 5, (a) => a.readBandwidth],
    ['WriteBandwidth', 5, (a) => a.writeBandwidth],
    ['ReadLatency', 6, (a) => a.readLatency],
    ['WriteLatency', 6, (a) => a.writeLatency],
  ];
  const kept = access.filter((a) => ctx.allowedNodes.has(a.node));
  return attrs.flatMap(([name, flags, value]) => {
    const rows = kept.flatMap((a) => {
      const v = value(a);
      const init = cpusOf(a.initiators);
      return v === null || init.length === 0
        ? []
        : [
            `    <memattr_value target_obj_type="NUMANode" target_obj_gp_index="${ctx.gpOfNode.get(a.node) ?? 0}" value="${v}" initiator_cpuset="${hwlocBitmap(init)}"/>`,
          ];
    });
    return rows.length === 0 ? [] : [`  <memattr name="${name}" flags="${flags}">`, ...rows, '  </memattr>'];
  });
}

/** hwloc's support flags: discovery on every tree, binding only on the running system. */
function supportLines(facts: HwlocFacts | undefined): string[] {
  const binding = facts?.realRoot
    ? [
        ...[
          'set_thisproc',
          'get_thisproc',
          'set_proc',
          'get_proc',
          'set_thisthread',
          'get_thisthread',
          'set_thread',
          'get_thread',
        ].map((k) => `cpubind.${k}_cpubind`),
        ...['thisproc', 'proc', 'thisthread'].map((k) => `cpubind.get_${k}_last_cpu_location`),
        ...['set_thisthread', 'get_thisthread', 'set_area', 'get_area'].map((k) => `membind.${k}_membind`),
        ...['alloc', 'firsttouch', 'bind', 'interleave', 'migrate'].map((k) => `membind.${k}_membind`),
        'membind.get_area_memlocation',
      ]
    : [];
  const kinds = facts !== undefined && cpuKinds(facts.cpuKinds).length > 0 ? ['cpukind_efficiency'] : [];
  // Without node directories hwloc makes the one node itself and does not claim NUMA discovery.
  const numa = facts?.numaDirs !== false;
  const discovery = [
    'pu',
    ...(numa ? ['numa', 'numa_memory'] : []),
    'disallowed_pu',
    ...(numa ? ['disallowed_numa'] : []),
    ...kinds,
  ].map((k) => `discovery.${k}`);
  return [...discovery, ...binding, 'custom.exported_support'].map((n) => `  <support name="${n}"/>`);
}

/** The online CPUs the cgroup cpuset allows; all online ones where hwloc finds no cgroup mount. */
function allowedCpus(t: Topology, facts: HwlocTreeFacts | undefined): number[] {
  const restricts = facts?.cgroupMounts !== false;
  return t.cpus.filter((c) => c.online && (c.allowed || !restricts)).map((c) => c.id);
}

/**
 * The topology as hwloc v2 XML. With `facts` (discover/hwloc_facts.ts) it carries what hwloc's
 * Linux discovery adds beyond the topology: the machine's info pairs and the I/O tree.
 */
/**
 * hwloc's object tree of `t` as the XML and `topo --only` show it: I/O attached, package infos,
 * what the cgroup cpuset does not allow left out.
 */
export function hwlocTopology(t: Topology, facts?: HwlocTreeFacts): { root: Obj; ctx: Ctx } {
  const root = hwlocTree(t, facts?.cpus ?? null);
  if (facts !== undefined) {
    attachIo(root, facts);
    const packages = (o: Obj) => {
      if (o.type === 'Package') o.infos.push(...(facts.cpuInfo.get(o.cpus[0] ?? -1) ?? []));
      o.children.forEach(packages);
    };
    packages(root);
  }
  const allowed = allowedCpus(t, facts);
  const nodes = t.nodes.map((n) => n.id);
  const allowedNodes = facts?.allowedNodes ?? nodes;
  const ctx: Ctx = {
    nodeset: nodesets(root),
    allowedCpus: new Set(allowed),
    allowedNodes: new Set(allowedNodes),
    memSideCaches: facts?.memSideCaches ?? new Map(),
    gp: { next: 1 },
    gpOfNode: new Map(),
  };
  restrict(root, ctx.allowedCpus, ctx.allowedNodes);
  return { root, ctx };
}

export function renderHwlocXml(t: Topology, facts?: HwlocFacts): string {
  const { root, ctx } = hwlocTopology(t, facts);
  const all = t.cpus.map((c) => c.id);
  const allowed = allowedCpus(t, facts);
  const nodes = t.nodes.map((n) => n.id);
  const allowedNodes = facts?.allowedNodes ?? nodes;
  const body = renderObj(root, ctx, '  ');
  // The machine's own attributes: its complete cpuset holds offline CPUs, its allowed ones only
  // what numakit's cgroup allows.
  body[0] = body[0]!.replace(
    /cpuset="[^"]*" complete_cpuset="[^"]*" nodeset="[^"]*" complete_nodeset="[^"]*"/,
    `cpuset="${hwlocBitmap(allowed)}" complete_cpuset="${hwlocBitmap(all)}" allowed_cpuset="${hwlocBitmap(allowed)}" nodeset="${hwlocBitmap(allowedNodes)}" complete_nodeset="${hwlocBitmap(nodes)}" allowed_nodeset="${hwlocBitmap(allowedNodes)}"`,
  );
  const machineInfo: (readonly [string, string])[] = facts
    ? [...facts.machineInfo]
    : t.kernel.productName.value !== null
      ? [['DMIProductName', t.kernel.productName.value]]
      : [];
  const info = infoLines([['Backend', 'numakit'], ...machineInfo, ['ProcessName', 'numakit']], '    ');
  // Misc objects (the DMI memory modules) are the machine's last children.
  const misc = (facts?.memoryModules ?? []).flatMap((m) => [
    `    <object type="Misc" os_index="${m.index}" gp_index="${ctx.gp.next++}" subtype="MemoryModule">`,
    ...infoLines(m.infos, '      '),
    '    </object>',
  ]);
  if (misc.length > 0) {
    if (body.length === 1) body.push('  </object>');
    body.splice(body.length - 1, 0, ...misc);
  }
  const opened = body[0]!.endsWith('/>') ? [body[0]!.replace(/\/>$/, '>'), '  </object>'] : [body[0]!];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
    '<topology version="2.0">',
    opened[0]!,
    ...info,
    ...body.slice(1),
    ...opened.slice(1),
    ...distances(t, ctx.allowedNodes),
    ...supportLines(facts),
    ...memattrLines(facts?.access ?? [], t, ctx),
    ...cpuKinds(facts?.cpuKinds ?? []).flatMap((k) => [
      `  <cpukind cpuset="${hwlocBitmap(k.cpus)}"${k.efficiency === null ? '' : ` forced_efficiency="${k.efficiency}"`}>`,
      ...infoLines(k.infos, '    '),
      '  </cpukind>',
    ]),
    '</topology>',
    '',
  ].join('\n');
}
