// Results of `numakit bench`: plain data, written as JSON (--json, --save) and read back by
// `bench compare` and the renderers. Field meanings and units: docs/bench.md.
import type { RunArgs } from './run_args.js';

export type BenchKernel = 'read' | 'write' | 'copy' | 'triad';

/** Where a buffer's pages were, from move_pages(2) with nodes = NULL. */
export interface Placement {
  /** The node the buffer was bound to. */
  readonly node: number;
  readonly pages: number;
  /** Pages found on `node`. */
  readonly onNode: number;
  /** Pages per node, for every node that holds some. */
  readonly byNode: Readonly<Record<string, number>>;
  /** Pages move_pages reported no node for (never touched, or an error). */
  readonly unplaced: number;
  /** onNode / pages. */
  readonly share: number;
  /** share was 1 before and after the cell's measurements. */
  readonly verified: boolean;
  /** Share of the buffer in transparent huge pages (smaps AnonHugePages); null when unknown. */
  readonly hugeShare: number | null;
}

export interface RateStats {
  readonly best: number;
  readonly median: number;
  readonly min: number;
}

export interface KernelResult {
  /** GB/s (10^9 bytes per second) from each rep's time: best = fastest rep. */
  readonly gbps: RateStats;
  /** Bytes one rep moves, counted as STREAM counts them (copy 2, triad 3 array lengths). */
  readonly bytesPerRep: number;
  /** Seconds of each timed rep, in order. */
  readonly seconds: number[];
}

export interface BandwidthCell {
  readonly cpuNode: number;
  readonly memNode: number;
  readonly cpus: number[];
  readonly kernels: Partial<Record<BenchKernel, KernelResult>>;
  readonly placement: Placement;
}

export interface LatencyCell {
  readonly cpuNode: number;
  readonly memNode: number;
  /** The CPU the chasing thread ran on. */
  readonly cpu: number;
  /** ns per load over the laps of the chase. */
  readonly ns: { readonly median: number; readonly min: number; readonly max: number };
  readonly laps: number;
  /** ns per load of each lap (for bench compare's interval). */
  readonly samples: number[];
  readonly placement: Placement;
  /** Loaded latency only: threads streaming reads beside the chase, and the GB/s they got. */
  readonly loaders?: number;
  readonly loadGbps?: number;
}

export interface BenchNode {
  readonly id: number;
  readonly cpus: number[];
  readonly memTotalBytes: number | null;
  readonly memFreeBytes: number | null;
  readonly distances: Readonly<Record<string, number>>;
  /** Last-level cache bytes of the node's CPUs (distinct caches added up); null when unknown. */
  readonly llcBytes: number | null;
}

/** What moves results, recorded with every result. null = the kernel file is absent. */
export interface BenchSettings {
  readonly kernel: string | null;
  readonly cpuModel: string | null;
  readonly hypervisor: boolean | null;
  readonly thp: string | null;
  readonly thpDefrag: string | null;
  readonly numaBalancing: number | null;
  readonly zoneReclaimMode: number | null;
  /** cpufreq governor ("performance"; "a, b" when CPUs differ); null in VMs without cpufreq. */
  readonly governor: string | null;
  readonly loadAverage: { readonly start: readonly number[] | null; readonly end: readonly number[] | null };
}

export interface MemOptions {
  readonly arrayBytes: number;
  readonly latencyBytes: number;
  readonly repeats: number;
  readonly seconds: number;
  readonly hugePages: boolean;
  readonly loaded: boolean;
  readonly bandwidth: boolean;
  readonly latency: boolean;
}

export interface MemResult {
  readonly schemaVersion: 1;
  readonly kind: 'bench-mem';
  readonly time: string;
  readonly nodes: BenchNode[];
  readonly settings: BenchSettings;
  readonly options: MemOptions;
  readonly cpuNodes: number[];
  readonly memNodes: number[];
  /** STREAM's rule: each array at least 4x the last-level cache of the CPUs that run. */
  readonly stream: {
    readonly llcBytes: number | null;
    readonly arrayToCache: number | null;
    readonly ruleMet: boolean | null;
  };
  readonly bandwidth: BandwidthCell[];
  readonly latency: LatencyCell[];
  readonly loadedLatency: LatencyCell[];
  readonly notes: string[];
  readonly warnings: string[];
}

/** A variant of `bench ab`: how the workload is run. */
export type AbVariantKind = 'default' | 'bind' | 'agent' | 'tuned';

export interface AbVariant {
  readonly name: string;
  readonly kind: AbVariantKind;
  /** As given: numactl options, agent options, or the profile name. */
  readonly spec: string;
}

/** What getrusage(2) says of a process tree: times in seconds (microsecond resolution), counts as the kernel keeps them. */
export interface Rusage {
  readonly userS: number;
  readonly systemS: number;
  readonly maxRssKb: number;
  readonly minorFaults: number;
  readonly majorFaults: number;
  readonly voluntaryCtxSwitches: number;
  readonly involuntaryCtxSwitches: number;
}

/** One run of a variant; its Rusage is the workload's whole process tree (RUSAGE_CHILDREN across its life). */
export interface AbRun extends Rusage {
  readonly variant: string;
  /** Round (1-based) and position within the round's shuffled order. */
  readonly round: number;
  readonly order: number;
  readonly warmup: boolean;
  /** Exited 0 (and the metric matched, with --metric): counted in the statistics. */
  readonly ok: boolean;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly wallS: number;
  /** The --metric capture; null without --metric or when it did not match. */
  readonly metric: number | null;
  /** numastat counters' increase per node over the run (system-wide), in pages. */
  readonly numastat: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly note?: string;
}

export interface Stat3 {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface AbVariantSummary {
  readonly variant: string;
  readonly runs: number;
  readonly failed: number;
  /** The compared measure: the metric, or wall seconds. null when no run counted. */
  readonly measure: Stat3 | null;
  readonly wallS: Stat3 | null;
  readonly userS: number | null;
  readonly systemS: number | null;
  /** Medians of the system-wide deltas over all nodes, pages. */
  readonly numaMiss: number | null;
  readonly otherNode: number | null;
  readonly minorFaults: number | null;
  readonly majorFaults: number | null;
  readonly ctxSwitches: number | null;
  /** Against the first variant, oriented so that > 1 is better; null for the first. */
  readonly ratio: { readonly value: number; readonly low: number; readonly high: number } | null;
  readonly verdict: string;
}

export interface AbResult {
  readonly schemaVersion: 1;
  readonly kind: 'bench-ab';
  readonly time: string;
  readonly command: string[];
  readonly nodes: BenchNode[];
  readonly settings: BenchSettings;
  readonly options: {
    readonly runs: number;
    readonly warmup: number;
    readonly settleS: number;
    readonly seed: number;
    readonly metric: { readonly regex: string; readonly better: 'higher' | 'lower' } | null;
    readonly numaBalancing: 'keep' | 'on' | 'off';
  };
  readonly variants: AbVariant[];
  readonly runs: AbRun[];
  readonly summary: AbVariantSummary[];
  readonly notes: string[];
  readonly warnings: string[];
}

/** `bench compare A.json B.json`: B against A, figure by figure. */
export interface CompareRow {
  /** "read 0->1", "latency 0->0", or a variant name. */
  readonly what: string;
  readonly unit: string;
  readonly a: number | null;
  readonly b: number | null;
  /** B against A, oriented so that > 1 means B is better; null when either side has no data. */
  readonly ratio: { readonly value: number; readonly low: number; readonly high: number } | null;
  readonly verdict: string;
}

export interface CompareResult {
  readonly schemaVersion: 1;
  readonly kind: 'bench-compare';
  readonly of: 'bench-mem' | 'bench-ab';
  readonly a: { readonly file: string; readonly time: string };
  readonly b: { readonly file: string; readonly time: string };
  /** Recorded settings that differ: "numa_balancing: 1 -> 0". */
  readonly changed: string[];
  readonly rows: CompareRow[];
}

export interface ParsedVariant extends AbVariant {
  /** For kind 'bind': the parsed numactl options. */
  readonly binding?: RunArgs;
  /** For kind 'agent': the agent's own options. */
  readonly agentArgs?: string[];
  readonly profile?: string;
}
