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
