// What every topo view (text, JSON, SVG, HTML) shows of hwloc's tree of the machine, the tree
// `topo --xml` writes (topo_hwloc_xml.ts): its Groups with their CPUs and NUMA nodes, each NUMA
// node's memory-side caches and whether it has CPUs, and the I/O tree (host bridges, PCI
// bridges and devices, OS devices) as lstopo draws it. Derived from that one tree, so no view
// can say something the XML does not. Pure.
import type { HwlocTreeFacts } from '../model/hwloc_io.js';
import type { Topology } from '../model/topology.js';
import type { IoObj } from './hwloc_io_tree.js';
import type { Obj } from './hwloc_tree.js';
import { hwlocTopology } from './topo_hwloc_xml.js';
import { groupLevels, OSDEV_NAME, pciClassName } from './topo_only.js';

export interface ViewGroup {
  /** lstopo's name of it: Group0, Group1 ... with its subtype ("Group0(Cluster)"). */
  readonly label: string;
  /** What made it: NUMA distances, a node's locality (memory), a CPU cluster. */
  readonly kind: 'distance' | 'memory' | 'cluster' | 'other';
  readonly cpus: readonly number[];
  readonly nodes: readonly number[];
}

export interface ViewNuma {
  readonly id: number;
  readonly cpuless: boolean;
  /** hwloc's subtype of it (none from sysfs alone today), null when it has none. */
  readonly subtype: string | null;
  /** Memory-side caches in front of it, innermost first. */
  readonly memCaches: readonly { readonly depth: number; readonly sizeBytes: number }[];
}

export interface ViewIo {
  /** Nesting depth in the I/O tree (0: a host bridge). */
  readonly depth: number;
  readonly type: 'HostBridge' | 'PCIBridge' | 'PCIDev' | 'OSDev';
  /** lstopo's label: `HostBridge`, `PCIBridge`, `PCI 00:1f.2 (SATA)`, `Net "eth0"`. */
  readonly label: string;
  /** Of a top-level object: the CPUs and NUMA nodes of the object it hangs under (its locality). */
  readonly near?: { readonly cpus: readonly number[]; readonly nodes: readonly number[] };
}

export interface HwlocView {
  readonly groups: readonly ViewGroup[];
  readonly numa: readonly ViewNuma[];
  readonly io: readonly ViewIo[];
}

function groupKind(o: Obj): ViewGroup['kind'] {
  const kind = Number(o.attrs['kind']);
  return kind === 900 ? 'distance' : kind === 1001 ? 'memory' : o.attrs['subtype'] === 'Cluster' ? 'cluster' : 'other';
}

function ioLabel(o: IoObj): ViewIo {
  if (o.type === 'Bridge')
    return o.attrs['bridge_type'] === '0-1'
      ? { depth: 0, type: 'HostBridge', label: 'HostBridge' }
      : { depth: 0, type: 'PCIBridge', label: 'PCIBridge' };
  if (o.type === 'PCIDev') {
    const busid = String(o.attrs['pci_busid']).replace(/^0000:/, '');
    return { depth: 0, type: 'PCIDev', label: `PCI ${busid} (${pciClassName(o.pci!.classId)})` };
  }
  const sub = o.attrs['subtype'] === undefined ? '' : `(${o.attrs['subtype']})`;
  const kind = OSDEV_NAME[Number(o.attrs['osdev_type'])] ?? 'OSDev';
  return { depth: 0, type: 'OSDev', label: `${kind}${sub} "${o.attrs['name']}"` };
}

function walkIo(list: readonly IoObj[], depth: number, out: ViewIo[], near?: ViewIo['near']): void {
  for (const o of list) {
    out.push({ ...ioLabel(o), depth, ...(near === undefined ? {} : { near }) });
    walkIo(o.children, depth + 1, out);
  }
}

/** hwloc's tree of `t` (with `facts`, as `topo --xml` builds it) as the views show it. */
export function hwlocView(t: Topology, facts: HwlocTreeFacts): HwlocView {
  const { root, ctx } = hwlocTopology(t, facts);
  const levels = groupLevels(root);
  const groups: ViewGroup[] = [];
  const numa: ViewNuma[] = [];
  const io: ViewIo[] = [];
  const walk = (o: Obj) => {
    if (o.type === 'Group') {
      const sub = o.attrs['subtype'] === undefined ? '' : `(${o.attrs['subtype']})`;
      const level = levels.get(`${o.attrs['kind']}/${o.attrs['subkind']}`) ?? 0;
      groups.push({ label: `Group${level}${sub}`, kind: groupKind(o), cpus: o.cpus, nodes: ctx.nodeset.get(o) ?? [] });
    }
    for (const m of o.memory)
      numa.push({
        id: m.id,
        cpuless: !t.cpus.some((c) => c.online && c.node === m.id),
        subtype: typeof m.attrs['subtype'] === 'string' ? m.attrs['subtype'] : null,
        memCaches: (facts.memSideCaches.get(m.id) ?? []).map((c) => ({ depth: c.depth, sizeBytes: c.sizeBytes })),
      });
    o.children.forEach(walk);
    walkIo(o.io, 0, io, { cpus: o.cpus, nodes: ctx.nodeset.get(o) ?? [] });
  };
  walk(root);
  numa.sort((a, b) => a.id - b.id);
  return { groups, numa, io };
}
