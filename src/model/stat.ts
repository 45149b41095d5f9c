// Plain data of `numakit stat`: per-node counters and meminfo, and per-process memory and
// CPU placement. Produced by src/discover/{node_stat,processes}.ts, consumed by
// src/policy/locality.ts and src/render/{numastat*,stat_*}.ts. Pure types.

/** Per-node system data, nodes in ascending id order (arrays are indexed like `nodes`). */
export interface NodeStat {
  readonly nodes: readonly number[];
  /** nodeN/numastat counters in pages, file order. */
  readonly numastat: readonly Readonly<Record<string, number>>[];
  /** nodeN/meminfo in bytes (HugePages_* are page counts), file order; null when absent. */
  readonly meminfo: readonly (Readonly<Record<string, number>> | null)[];
  /** Huge page pools of every size summed, in bytes; null when the node has no pools dir. */
  readonly huge: readonly ({ totalBytes: number; freeBytes: number; surplusBytes: number } | null)[];
  /** Base page size in bytes (unit of the numastat counters). */
  readonly pageSize: number;
  /** /proc/meminfo Hugepagesize in bytes (numastat's unit for every huge page). */
  readonly defaultHugePageSize: number;
}

/** Memory of one process on one node, split as numastat splits it. */
export interface NodeMemory {
  readonly hugeBytes: number;
  readonly heapBytes: number;
  readonly stackBytes: number;
  readonly privateBytes: number;
  readonly totalBytes: number;
}

export type ProcessMemory =
  | {
      readonly kind: 'ok';
      /** Node id (as a string, JSON-style) -> memory; only nodes with pages. */
      readonly nodes: Readonly<Record<string, NodeMemory>>;
      readonly totalBytes: number;
      /** Memory policies seen in numa_maps with their bytes: "default", "bind:1", "interleave:0-3" ... */
      readonly policies: Readonly<Record<string, number>>;
    }
  | { readonly kind: 'no-permission' };

export interface ProcessMemoryInfo {
  readonly pid: number;
  /** /proc/PID/status Name (what numastat prints in parentheses). */
  readonly comm: string;
  readonly memory: ProcessMemory;
}

/** One thread's CPU over a sampling window, and the node of the CPU it last ran on. */
export interface ThreadUse {
  readonly tid: number;
  readonly seconds: number;
  readonly node: number | null;
}

/** A process observed over a sampling window. */
export interface ProcessSample extends ProcessMemoryInfo {
  readonly cmdline: string;
  readonly threads: number;
  readonly cpusAllowed: readonly number[] | null;
  readonly memsAllowed: readonly number[] | null;
  /** Node id -> CPU seconds its threads used there during the window. */
  readonly cpuNodes: Readonly<Record<string, number>>;
  /** Nodes of the CPUs its threads last ran on (at the end of the window). */
  readonly lastNodes: readonly number[];
  readonly windowSeconds: number;
  /** Each thread's CPU over the window (only when the sampler was asked for it: the agent). */
  readonly threadUse?: readonly ThreadUse[];
}

/**
 * A node's meminfo (bytes) less one process's own pages: its anonymous pages out of AnonPages,
 * Inactive(anon) and Inactive first (where the kernel puts new anonymous pages) then
 * Active(anon) and Active; the file pages it alone maps out of Mapped. MemFree and MemUsed are
 * left as read: the pages a process frees at exit go to the per-CPU free lists, which MemFree
 * does not count, so numastat run after numakit sees the same MemFree as numakit saw (measured
 * in the lab: node 1's MemFree 421.7 MB before numakit, 411.4 during, 411.3 after). Pure; no
 * field goes below 0 and a field the node does not report stays unreported.
 */
export function withoutFootprint(
  meminfo: Readonly<Record<string, number>>,
  fp: { readonly anonBytes: number; readonly mappedBytes: number },
): Record<string, number> {
  const m: Record<string, number> = { ...meminfo };
  const take = (key: string, bytes: number): number => {
    const have = m[key];
    if (have === undefined) return 0;
    const taken = Math.min(have, bytes);
    m[key] = have - taken;
    return taken;
  };
  take('AnonPages', fp.anonBytes);
  const inactive = take('Inactive(anon)', fp.anonBytes);
  take('Inactive', inactive);
  take('Active', take('Active(anon)', fp.anonBytes - inactive));
  take('Mapped', fp.mappedBytes);
  return m;
}
