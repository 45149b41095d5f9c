// `numakit topo --only TYPE [-p|-l]`: the objects of one type of hwloc's tree of the machine (the
// tree `--xml` writes), one line each, as `lstopo --only TYPE` prints them: logical indexes (L#,
// the order of the tree) by default, physical ones (P#, the kernel's) with -p. Pure.
import type { HwlocFacts } from '../model/hwloc_io.js';
import type { Topology } from '../model/topology.js';
import type { IoObj } from './hwloc_io_tree.js';
import type { Obj } from './hwloc_tree.js';
import { hwlocTopology } from './topo_hwloc_xml.js';
import type { OnlyType } from './topo_only_types.js';

/** lstopo's sizes: KB, then MB, GB ... while the figure is 10240 or more. */
export function lstopoSize(bytes: number): string {
  let v = Math.floor(bytes / 1024);
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let u = 0;
  while (v >= 10240 && u < units.length - 1) {
    v = Math.floor((v + 512) / 1024);
    u++;
  }
  return `${v}${units[u]}`;
}

const PCI_CLASS: Record<number, string> = {
  1: 'VGA',
  256: 'SCSI',
  257: 'IDE',
  258: 'Floppy',
  259: 'IPI',
  260: 'RAID',
  261: 'ATA',
  262: 'SATA',
  263: 'SAS',
  264: 'NVMExp',
  512: 'Ethernet',
  513: 'TokenRing',
  514: 'FDDI',
  515: 'ATM',
  516: 'ISDN',
  517: 'WorldFip',
  518: 'PICMG',
  519: 'InfiniBand',
  520: 'Fabric',
  768: 'VGA',
  769: 'XGA',
  770: '3D',
  1282: 'CXLMem',
  1536: 'HostBridge',
  1540: 'PCIBridge',
  2880: 'Co-Processor',
  3076: 'FibreChannel',
  3078: 'InfiniBand',
};
const PCI_BASE: Record<number, string> = {
  1: 'Storage',
  2: 'Network',
  3: 'Display',
  5: 'Memory',
  6: 'Bridge',
  11: 'Processor',
  12: 'SerialBus',
  18: 'ProcessingAccelerator',
  64: 'Co-Processor',
};

/** hwloc_pci_class_string, for the classes lstopo keeps. */
export const pciClassName = (c: number) => PCI_CLASS[c] ?? PCI_BASE[c >> 8] ?? 'Other';

export const OSDEV_NAME = ['Block', 'GPU', 'Net', 'OpenFabrics', 'DMA', 'CoProc'];

interface Found {
  readonly label: string;
  readonly os: number | null;
  readonly extra: string | null;
  readonly line?: string;
}

const cacheLabel = (type: string) => type.replace(/Cache$/, '').replace(/^L1$/, 'L1d');

function matches(type: OnlyType, o: Obj): boolean {
  switch (type) {
    case 'numa':
    case 'pci':
    case 'osdev':
      return false;
    case 'package':
      return o.type === 'Package';
    case 'die':
      return o.type === 'Die';
    case 'group':
      return o.type === 'Group';
    case 'core':
      return o.type === 'Core';
    case 'pu':
      return o.type === 'PU';
    default:
      return o.type === `${type.toUpperCase()}Cache`;
  }
}

function ioLines(type: OnlyType, list: readonly IoObj[], out: Found[]): void {
  for (const o of list) {
    if (type === 'pci' && o.type === 'PCIDev') {
      const busid = String(o.attrs['pci_busid']).replace(/^0000:/, '');
      out.push({ label: 'PCI', os: null, extra: null, line: `PCI ${busid} (${pciClassName(o.pci!.classId)})` });
    }
    if (type === 'osdev' && o.type === 'OSDev') {
      const sub = o.attrs['subtype'] === undefined ? '' : `(${o.attrs['subtype']})`;
      const kind = OSDEV_NAME[Number(o.attrs['osdev_type'])] ?? 'OSDev';
      out.push({ label: kind, os: null, extra: null, line: `${kind}${sub} "${o.attrs['name']}"` });
    }
    ioLines(type, o.children, out);
  }
}

/**
 * hwloc's Group levels (Group0, Group1 ...): one per kind and subkind of Group, in the order a
 * breadth-first walk meets them (distance groups above memory groups of the same depth).
 */
export function groupLevels(root: Obj): Map<string, number> {
  const levels = new Map<string, number>();
  for (let queue: Obj[] = [root]; queue.length > 0; ) {
    const o = queue.shift()!;
    const k = `${o.attrs['kind']}/${o.attrs['subkind']}`;
    if (o.type === 'Group' && !levels.has(k)) levels.set(k, levels.size);
    queue.push(...o.children);
  }
  return levels;
}

/** The objects of `type` in tree order, with their lstopo labels. */
function collect(type: OnlyType, root: Obj, levels: Map<string, number>, out: Found[]): void {
  if (matches(type, root)) {
    const os = root.attrs['os_index'] === undefined ? null : Number(root.attrs['os_index']);
    const size = root.attrs['cache_size'];
    const sub = root.attrs['subtype'] === undefined ? '' : `(${root.attrs['subtype']})`;
    const label =
      root.type === 'Group'
        ? `Group${levels.get(`${root.attrs['kind']}/${root.attrs['subkind']}`) ?? 0}${sub}`
        : root.type.endsWith('Cache')
          ? cacheLabel(root.type)
          : root.type;
    out.push({ label, os, extra: size === undefined ? null : lstopoSize(Number(size)) });
  }
  for (const c of root.children) collect(type, c, levels, out);
  ioLines(type, root.io, out);
}

/** Every NUMA node in hwloc's logical order: an object's children's nodes before its own. */
function numaNodes(root: Obj, out: number[]): number[] {
  for (const c of root.children) numaNodes(c, out);
  out.push(...root.memory.map((m) => m.id));
  return out;
}

/** `topo --only TYPE`: one line per object, logical (L#) or physical (P#) indexes. */
export function renderTopoOnly(t: Topology, facts: HwlocFacts, type: OnlyType, physical: boolean): string {
  const { root } = hwlocTopology(t, facts);
  const sizes = new Map(t.nodes.map((n) => [n.id, n.memTotalBytes ?? 0]));
  const found: Found[] =
    type === 'numa'
      ? numaNodes(root, []).map((id) => ({ label: 'NUMANode', os: id, extra: lstopoSize(sizes.get(id) ?? 0) }))
      : [];
  if (type !== 'numa') collect(type, root, groupLevels(root), found);
  const seen = new Map<string, number>();
  const lines = found.map((f) => {
    if (f.line !== undefined) return f.line;
    const l = seen.get(f.label) ?? 0;
    seen.set(f.label, l + 1);
    const extra = f.extra === null ? '' : f.extra;
    if (physical) {
      const idx = f.os === null ? '' : ` P#${f.os}`;
      return `${f.label}${idx}${extra ? ` (${extra})` : ''}`;
    }
    const pIdx = f.os !== null && (f.label === 'PU' || f.label === 'NUMANode') ? `P#${f.os}` : '';
    const inner = [pIdx, extra].filter((x) => x !== '').join(' ');
    return `${f.label} L#${l}${inner ? ` (${inner})` : ''}`;
  });
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
