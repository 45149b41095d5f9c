// Per-node memory and allocation counters: nodeN/meminfo and nodeN/numastat of every node
// directory, and the same series under node_exporter's meminfo_numa names, types and labels
// (node_exporter collector/meminfo_numa_linux.go): node_memory_numa_<Field>{node} gauges in
// bytes ("Active(anon)" -> "Active_anon"; HugePages_* stay page counts, as printed), and
// node_memory_numa_<counter>_total{node} counters in pages. A node that goes offline loses its
// directory and its series; one whose files cannot be parsed is a gap.
import { readNodeMemoryNow } from '../../discover/node_sampler.js';
import type { Meminfo } from '../../sysfs/node_meminfo.js';
import type { NodeNumastat } from '../../sysfs/node_numastat.js';
import { listNodeDirs } from '../../sysfs/node_list.js';
import { family, s, type Family, type Sample } from '../exposition.js';
import { guard, type CollectContext } from './context.js';

export interface NodeMemory {
  readonly node: number;
  /** Bytes, except HugePages_* (pages); null when absent or unparseable. */
  readonly meminfo: Meminfo | null;
  /** Pages since boot; null when absent or unparseable. */
  readonly numastat: NodeNumastat | null;
}

/** Every node's meminfo and numastat, read by the node sampler (discover/node_sampler.ts). */
export function readNodeMemory(c: CollectContext): NodeMemory[] {
  return listNodeDirs(c.root).map((node) => ({
    node,
    ...(guard(c, 'node_memory', () => readNodeMemoryNow(c.root, node)) ?? { meminfo: null, numastat: null }),
  }));
}

/** node_exporter's name for a meminfo field: "Active(anon)" -> "Active_anon". */
export function meminfoMetricName(field: string): string {
  return `node_memory_numa_${field.replace(/\((.*)\)/, '_$1')}`;
}

function grouped(rows: [string, Sample][]): Map<string, Sample[]> {
  const m = new Map<string, Sample[]>();
  for (const [k, x] of rows) (m.get(k) ?? m.set(k, []).get(k)!).push(x);
  return m;
}

/** The node_exporter-compatible families (help text as node_exporter writes it). */
export function nodeExporterFamilies(nodes: readonly NodeMemory[]): Family[] {
  const gauges: [string, Sample][] = [];
  const counters: [string, Sample][] = [];
  for (const n of nodes) {
    const labels = { node: String(n.node) };
    for (const [k, v] of Object.entries(n.meminfo ?? {})) gauges.push([k, s(v, labels)]);
    for (const [k, v] of Object.entries(n.numastat ?? {})) counters.push([k, s(v, labels)]);
  }
  const out: Family[] = [];
  for (const [k, xs] of grouped(gauges)) {
    const name = meminfoMetricName(k);
    out.push(family(name, 'gauge', `Memory information field ${name.slice('node_memory_numa_'.length)}.`, xs));
  }
  for (const [k, xs] of grouped(counters))
    out.push(family(`node_memory_numa_${k}_total`, 'counter', `Memory information field ${k}_total.`, xs));
  return out;
}
