// The lines every topo view prints of hwloc's tree (hwloc_view.ts): the text view prints them
// as they are, the SVG draws the same strings, the JSON carries the objects they come from. Pure.
import { formatCpuList } from '../model/cpuset.js';
import type { HwlocView, ViewGroup, ViewNuma } from './hwloc_view.js';
import { formatBytes } from './units.js';

const KIND_TEXT: Record<ViewGroup['kind'], string> = {
  distance: 'NUMA nodes close by distance',
  memory: "a NUMA node's locality",
  cluster: 'CPUs sharing a cluster',
  other: 'hwloc group',
};

/** "memory-side cache 256 MiB (level 1)" for each cache in front of a node, innermost first. */
export function memCacheLines(n: ViewNuma): string[] {
  return n.memCaches.map((c) => `memory-side cache ${formatBytes(c.sizeBytes)} (level ${c.depth})`);
}

/** "Group0: nodes 0-3, CPUs 0-7 (NUMA nodes close by distance)", one a group. */
export function groupLines(view: HwlocView): string[] {
  return view.groups.map((g) => {
    const nodes =
      g.nodes.length === 0 ? 'no nodes' : `${g.nodes.length === 1 ? 'node' : 'nodes'} ${formatCpuList(g.nodes)}`;
    const cpus = g.cpus.length === 0 ? 'no CPUs' : `CPUs ${formatCpuList(g.cpus)}`;
    return `${g.label}: ${nodes}, ${cpus} (${KIND_TEXT[g.kind]})`;
  });
}

/** The I/O tree as lstopo draws it, two spaces a level; a top object says where it hangs. */
export function ioTreeLines(view: HwlocView): string[] {
  return view.io.map((o) => {
    const near =
      o.near === undefined
        ? ''
        : ` (near ${o.near.nodes.length === 1 ? 'node' : 'nodes'} ${formatCpuList(o.near.nodes)}, CPUs ${formatCpuList(o.near.cpus)})`;
    return `${'  '.repeat(o.depth)}${o.label}${near}`;
  });
}

/** The text view's sections of hwloc's tree (none when it has no groups and no I/O). */
export function hwlocSections(view: HwlocView): string[] {
  const out: string[] = [];
  const groups = groupLines(view);
  if (groups.length > 0) out.push('', 'groups (as hwloc makes them, topo --xml):', ...groups.map((l) => `  ${l}`));
  const io = ioTreeLines(view);
  if (io.length > 0) out.push('', 'I/O tree (as hwloc places it, topo --xml):', ...io.map((l) => `  ${l}`));
  return out;
}
