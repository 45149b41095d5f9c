// The machine as the agent's policy sees it each interval: per node its CPUs, free memory,
// idle CPUs over the interval (two /proc/stat readings) and distances; plus the numastat
// counters and free memory the metrics export.
// What a pass reads every time is small: the online nodes and CPUs and /proc/stat (kept open).
// The layout (each node's CPUs and distances) is read again only when those change (hotplug);
// free memory and numastat only when a pass has candidates to place or metrics to serve.
import { KeptFile } from '../sysfs/kept_file.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import { groupByL3, l3ByCpu } from '../model/topology.js';
import { readMachineCaches } from '../sysfs/cpu_cache.js';
import { listNodeDirs, readNodeCpulist } from '../sysfs/node_list.js';
import { readNodeDistance } from '../sysfs/node_distance.js';
import type { NodeNumastat } from '../sysfs/node_numastat.js';
import { parseProcStat, type CpuTimes } from '../sysfs/proc_stat.js';
import { type CpuReading, nodeCpuWindow, readNodeMemoryNow } from '../discover/node_sampler.js';
import type { SysRoot } from '../sysfs/root.js';
import type { NodeView } from '../policy/agent/types.js';

/** Node ids, their CPUs and SLIT rows: what changes only with hotplug. */
export interface NodeLayout {
  /** Online nodes and CPUs when read: the layout is read again when these change. */
  readonly key: string;
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly cpus: number[];
    readonly distances: Record<string, number>;
    /** Its CPUs by L3 (model/topology.ts groupByL3); [] when the caches are unknown. */
    readonly l3: number[][];
  }>;
}

export interface MachineReading {
  readonly nodes: NodeView[];
  /** Node id -> nodeN/numastat counters (pages). */
  readonly numastat: ReadonlyMap<number, NodeNumastat>;
}

export type { CpuReading };

/** The files every pass reads, kept open on the running system (sysfs/kept_file.ts). */
export class MachineFiles {
  readonly procStat: KeptFile;
  readonly nodeOnline: KeptFile;
  readonly cpuOnline: KeptFile;

  constructor(readonly root: SysRoot) {
    this.procStat = new KeptFile(root, 'proc/stat');
    this.nodeOnline = new KeptFile(root, 'sys/devices/system/node/online');
    this.cpuOnline = new KeptFile(root, 'sys/devices/system/cpu/online');
  }
}

export function readCpuTimes(files: MachineFiles): CpuReading {
  const text = files.procStat.read();
  return (
    (text === null ? null : parseOrWarn(files.root, 'proc/stat', text, parseProcStat)) ?? new Map<number, CpuTimes>()
  );
}

/**
 * The layout; `previous` is returned as is when the online nodes and CPUs are unchanged (two
 * one-line files a pass: node/online and cpu/online change on every hotplug).
 */
export function readLayout(files: MachineFiles, previous: NodeLayout | null): NodeLayout {
  const root = files.root;
  const key = `${files.nodeOnline.read()?.trim() ?? ''};${files.cpuOnline.read()?.trim() ?? ''}`;
  if (previous !== null && previous.key === key) return previous;
  const ids = listNodeDirs(root);
  const cpus = new Map(ids.map((id) => [id, readNodeCpulist(root, id) ?? []]));
  const l3 = l3ByCpu(readMachineCaches(root, [...cpus.values()].flat(), { shared: true }));
  return {
    key,
    nodes: ids.map((id) => {
      const row = readNodeDistance(root, id) ?? [];
      // The SLIT row is in the order of the node directories (node ids ascending).
      return {
        id,
        cpus: cpus.get(id)!,
        distances: Object.fromEntries(row.map((d, i) => [String(ids[i] ?? i), d])),
        l3: groupByL3(cpus.get(id)!, (c) => l3.get(c)),
      };
    }),
  };
}

/**
 * Every node now: free memory and numastat read here; idle CPUs between `before` and `after` by
 * the node sampler's one rule (discover/node_sampler.ts). A node whose idle CPUs are unknown (no
 * window yet) offers none: the policy never places on CPUs it has not seen idle.
 */
export function readMachine(
  root: SysRoot,
  layout: NodeLayout,
  before: CpuReading | null,
  after: CpuReading,
): MachineReading {
  const numastat = new Map<number, NodeNumastat>();
  const nodes = layout.nodes.map((n): NodeView => {
    const mem = readNodeMemoryNow(root, n.id);
    if (mem.numastat !== null) numastat.set(n.id, mem.numastat);
    return {
      id: n.id,
      cpus: n.cpus,
      distances: n.distances,
      freeBytes: mem.meminfo?.['MemFree'] ?? 0,
      idleCpus: nodeCpuWindow(n.cpus, before, after).idleCpus ?? 0,
      ...(n.l3.length > 1
        ? { l3: n.l3.map((g) => ({ cpus: g, idleCpus: nodeCpuWindow(g, before, after).idleCpus ?? 0 })) }
        : {}),
    };
  });
  return { nodes, numastat };
}
