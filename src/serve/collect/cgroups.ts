// Per-cgroup series with bounded cardinality: the cgroups of the top-K processes (the processes
// collector's, by remote memory), their processes' remote memory and memory added up, ranked,
// at most K cgroups; each with its memory per node from memory.numa_stat. Labels: the cgroup
// path, and under kubepods the pod UID, QoS class and container id the kubelet writes into it
// (no command lines, no unbounded values: a cgroup path is as long as the hierarchy is deep).
import { readMemoryCgroup, type ProcCgroup } from '../../discover/cgroup_numa.js';
import { kubeLabels } from '../../model/cgroup_numa.js';
import { readCgroupNumaStat } from '../../sysfs/cgroup_numa_stat.js';
import { family, s, type Family } from '../exposition.js';
import { guard, type CollectContext } from './context.js';
import type { TopProcesses } from './processes.js';

export interface CgroupSeries {
  readonly path: string;
  readonly processes: number;
  readonly memoryBytes: number;
  readonly remoteBytes: number;
  /** Node -> bytes (memory.numa_stat anon + file); {} when it has none. */
  readonly nodes: Readonly<Record<string, number>>;
}

export function readCgroupSeries(
  c: CollectContext,
  top: TopProcesses,
  limit: number,
  pageSize: number,
): CgroupSeries[] {
  const by = new Map<string, { cg: ProcCgroup; processes: number; memoryBytes: number; remoteBytes: number }>();
  for (const p of top.top) {
    const cg = guard(c, 'cgroups', () => readMemoryCgroup(c.root, p.pid));
    if (cg === null) continue;
    const t = by.get(cg.path) ?? by.set(cg.path, { cg, processes: 0, memoryBytes: 0, remoteBytes: 0 }).get(cg.path)!;
    t.processes++;
    t.memoryBytes += p.totalBytes;
    t.remoteBytes += p.remoteBytes;
  }
  return [...by.values()]
    .sort(
      (a, b) => b.remoteBytes - a.remoteBytes || b.memoryBytes - a.memoryBytes || a.cg.path.localeCompare(b.cg.path),
    )
    .slice(0, limit)
    .map(({ cg, ...t }) => {
      const stat = guard(c, 'cgroups', () => readCgroupNumaStat(c.root, cg.path, { version: cg.version, pageSize }));
      const nodes = Object.fromEntries([...(stat ?? new Map())].map(([n, m]) => [String(n), m.total]));
      return { path: cg.path, ...t, nodes };
    });
}

function labels(path: string): Record<string, string> {
  const k = kubeLabels(path);
  return k === null ? { cgroup: path } : { cgroup: path, pod: k.pod, container: k.container, qos: k.qos };
}

export function cgroupFamilies(cgs: readonly CgroupSeries[]): Family[] {
  if (cgs.length === 0) return [];
  return [
    family(
      'numakit_cgroup_remote_bytes',
      'gauge',
      "Memory of the cgroup's top processes away from the nodes they run on (the top-K processes by remote memory, added up by cgroup)",
      cgs.map((c) => s(c.remoteBytes, labels(c.path))),
    ),
    family(
      'numakit_cgroup_process_memory_bytes',
      'gauge',
      "Memory of the cgroup's top processes (numa_maps), added up",
      cgs.map((c) => s(c.memoryBytes, labels(c.path))),
    ),
    family(
      'numakit_cgroup_memory_bytes',
      'gauge',
      'Memory charged to the cgroup per node (memory.numa_stat anon + file, with descendants)',
      cgs.flatMap((c) => Object.entries(c.nodes).map(([node, b]) => s(b, { ...labels(c.path), node }))),
    ),
  ];
}
