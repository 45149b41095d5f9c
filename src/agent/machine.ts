// The machine as the agent's policy sees it each interval: per node its CPUs, free memory,
// idle CPUs over the interval (two /proc/stat readings) and distances; plus the numastat
// counters and free memory the metrics export.
import { listNodeDirs, readNodeCpulist } from '../sysfs/node_list.js';
import { readNodeDistance } from '../sysfs/node_distance.js';
import { readNodeMeminfo } from '../sysfs/node_meminfo.js';
import { readNodeNumastat, type NodeNumastat } from '../sysfs/node_numastat.js';
import { readProcStat, type CpuTimes } from '../sysfs/proc_stat.js';
import type { SysRoot } from '../sysfs/root.js';
import type { NodeView } from '../policy/agent/types.js';

export interface MachineReading {
  readonly nodes: NodeView[];
  /** Node id -> nodeN/numastat counters (pages). */
  readonly numastat: ReadonlyMap<number, NodeNumastat>;
  /** Per-CPU times, for the next reading's idle CPUs. */
  readonly cpuTimes: ReadonlyMap<number, CpuTimes>;
}

/** Idle share of one CPU between two readings; 1 (idle) when unknown or no time passed. */
function idleShare(cpu: number, before: ReadonlyMap<number, CpuTimes> | null, after: ReadonlyMap<number, CpuTimes>): number {
  const a = after.get(cpu);
  const b = before?.get(cpu);
  if (a === undefined || b === undefined || a.total <= b.total) return 1;
  return 1 - Math.min(1, Math.max(0, (a.busy - b.busy) / (a.total - b.total)));
}

/** Reads every node; `previous` is the last reading (null on the first: CPUs count as idle). */
export function readMachine(root: SysRoot, previous: MachineReading | null): MachineReading {
  const ids = listNodeDirs(root);
  const cpuTimes = readProcStat(root) ?? new Map<number, CpuTimes>();
  const numastat = new Map<number, NodeNumastat>();
  const nodes = ids.map((id): NodeView => {
    const cpus = readNodeCpulist(root, id) ?? [];
    const row = readNodeDistance(root, id) ?? [];
    const counters = readNodeNumastat(root, id);
    if (counters !== null) numastat.set(id, counters);
    return {
      id, cpus,
      freeBytes: readNodeMeminfo(root, id)?.['MemFree'] ?? 0,
      idleCpus: cpus.reduce((s, c) => s + idleShare(c, previous?.cpuTimes ?? null, cpuTimes), 0),
      // The SLIT row is in the order of the node directories (node ids ascending).
      distances: Object.fromEntries(row.map((d, i) => [String(ids[i] ?? i), d])),
    };
  });
  return { nodes, numastat, cpuTimes };
}
