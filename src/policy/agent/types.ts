// Plain data of the agent's placement policy: what it sees of the machine and of each process,
// its options, and the decisions it returns. Pure types; src/agent/ fills them from /proc and
// /sys and acts on the decisions.
import type { AccessLocality } from '../../model/access_locality.js';
import type { ProcessMemory, ThreadUse } from '../../model/stat.js';

export type Strategy = 'balance' | 'consolidate';
export type Tune = 'threads' | 'pages' | 'both';
/** process: all threads of a process together; threads: its hot threads with its memory, the rest nearby. */
export type Granularity = 'process' | 'threads';
/** process: each process alone; cgroup: each cgroup v2 leaf with its processes together. */
export type UnitKind = 'process' | 'cgroup';

export interface PolicyOptions {
  /** Resident memory a process needs to be managed (bytes). */
  readonly minRssBytes: number;
  /** CPU a process needs to be managed, in CPUs (1 = one CPU busy over the window). */
  readonly minCpu: number;
  /** Regular expressions on comm or command line; empty = every process. */
  readonly include: readonly RegExp[];
  readonly exclude: readonly RegExp[];
  /** Manage processes whose affinity or memory policy someone else set. */
  readonly overridePins: boolean;
  /** Act only when the expected locality gain is at least this (0..1). */
  readonly minGain: number;
  /** After acting on a process (or failing to), leave it alone this long. */
  readonly cooldownMs: number;
  /**
   * A process younger than this is not moved yet (0: no minimum): a short job (a build step, a
   * script, a query) ends within seconds, and moving its memory would cost more than it gains.
   */
  readonly minAgeMs: number;
  /** Global migration budget in MB/s (10^6 bytes); 0 = unlimited. */
  readonly maxMigrateMbps: number;
  readonly strategy: Strategy;
  readonly tune: Tune;
  readonly granularity: Granularity;
  /** Also move memory from memory-only nodes (CXL, PMEM) to the CPU nodes chosen; off by default. */
  readonly promote: boolean;
}

/** A node as the policy sees it over the last window. */
export interface NodeView {
  readonly id: number;
  /** Online CPUs; empty for a memory-only node. */
  readonly cpus: readonly number[];
  readonly freeBytes: number;
  /** CPUs not busy over the window (0..cpus.length), from /proc/stat. */
  readonly idleCpus: number;
  /** SLIT row: node id (as a string) -> distance. */
  readonly distances: Readonly<Record<string, number>>;
  /**
   * Its L3 groups with their idle CPUs over the window, when it has more than one (EPYC
   * CCX/CCD, sub-NUMA clusters); absent otherwise. A process that fits one gets it (l3.ts).
   */
  readonly l3?: readonly { readonly cpus: readonly number[]; readonly idleCpus: number }[];
}

export interface MachineView {
  readonly nodes: readonly NodeView[];
}

/** What the cheap screen sees: /proc/PID/status, stat and cmdline, no numa_maps. */
export interface ProcessBrief {
  readonly pid: number;
  readonly comm: string;
  readonly cmdline: string;
  readonly rssBytes: number;
  /** CPUs used over the window (CPU seconds / window seconds). */
  readonly cpu: number;
  /** Main thread's Cpus_allowed_list; null when unknown. */
  readonly cpusAllowed: readonly number[] | null;
  /** CPUs the process could be given: its cgroup cpuset, or every online CPU. */
  readonly cpusPermitted: readonly number[];
  /** CPUs the agent itself set on this process (from its journal); null when it never did. */
  readonly agentCpus: readonly number[] | null;
  /** Seconds since it started; absent when unknown (no /proc/uptime, a cgroup unit). */
  readonly ageSeconds?: number;
  /** --unit cgroup: the cgroup placed as one unit and its processes (pid, comm are one of them). */
  readonly unit?: Unit;
}

export interface Unit {
  readonly cgroup: string;
  readonly pids: readonly number[];
}

/** A candidate with its memory per node (numa_maps) and where it ran. */
export interface ProcessView extends ProcessBrief {
  readonly threads: number;
  readonly memory: ProcessMemory;
  /** Node id -> CPU seconds over the window. */
  readonly cpuNodes: Readonly<Record<string, number>>;
  readonly lastNodes: readonly number[];
  readonly memsAllowed: readonly number[] | null;
  readonly windowSeconds: number;
  /** Each thread's CPU over the window (for --granularity threads). */
  readonly threadUse?: readonly ThreadUse[];
  /** Where its memory accesses go (NUMA-balancing faults), when known: policy/agent/access_signal.ts. */
  readonly access?: AccessLocality;
}

/** Why a process is left alone. */
export type SkipReason =
  | 'kernel-thread'
  | 'init'
  | 'self'
  | 'small'
  | 'idle'
  | 'excluded'
  | 'not-included'
  | 'pinned-cpus'
  | 'pinned-memory'
  | 'cooldown'
  | 'no-permission'
  | 'local'
  | 'low-gain'
  | 'cold-memory'
  | 'no-room'
  | 'budget'
  | 'no-memory'
  | 'pinned-cgroup'
  | 'young'
  | 'confirming';

/**
 * --granularity threads: the hot threads go to `cpus` with the memory; every other thread
 * (threads born later included, unless a hot one creates them) to `coldCpus`.
 */
export interface ThreadSplit {
  readonly hotTids: readonly number[];
  readonly coldNodes: readonly number[];
  readonly coldCpus: readonly number[];
  /** CPUs (over the window) of the hot and the cold threads. */
  readonly hotCpu: number;
  readonly coldCpu: number;
  /** Locality of the hot threads now and after the move. */
  readonly hotLocalityNow: number;
  readonly hotLocalityAfter: number;
}

/** Where a process should go: nodes, the CPUs for its threads, the memory to move. */
export interface Placement {
  readonly nodes: readonly number[];
  /** CPUs for every thread; null when threads are not moved (--tune pages). */
  readonly cpus: readonly number[] | null;
  /** Memory to migrate: from these nodes to `nodes`; empty when none (--tune threads). */
  readonly moveFrom: readonly number[];
  readonly moveBytes: number;
  readonly localityNow: number;
  readonly localityAfter: number;
  /** Hot and cold threads placed apart (--granularity threads); absent: every thread to `cpus`. */
  readonly split?: ThreadSplit;
}

export type Decision =
  | {
      readonly kind: 'move';
      readonly pid: number;
      readonly comm: string;
      readonly placement: Placement;
      readonly reason: string /** CPUs it used over the window. */;
      readonly cpu?: number;
      readonly unit?: Unit;
    }
  | {
      readonly kind: 'skip';
      readonly pid: number;
      readonly comm: string;
      readonly skip: SkipReason;
      readonly reason: string;
      readonly localityNow?: number;
      readonly cpu?: number;
      readonly unit?: Unit;
    };

export const DEFAULT_POLICY: PolicyOptions = {
  minRssBytes: 32 * 1024 * 1024,
  minCpu: 0.2,
  include: [],
  exclude: [],
  overridePins: false,
  minGain: 0.1,
  cooldownMs: 30_000,
  minAgeMs: 0,
  maxMigrateMbps: 1000,
  strategy: 'balance',
  tune: 'both',
  granularity: 'threads',
  promote: false,
};
