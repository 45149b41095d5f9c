// Access locality: which nodes a process's memory accesses hit lately, as opposed to where its
// memory sits (placement locality). From the kernel's NUMA-balancing hinting faults per task
// (sysfs/proc_sched_numa.ts), or from PMU memory-access samples (sysfs/perf_samples.ts: Intel
// PEBS, AMD IBS), counted in the same shape.

/** One task's recent hinting faults by the node of the memory, and the node it runs on now. */
export interface TaskNumaFaults {
  readonly currentNode: number | null;
  /** Node id -> faults (private + shared); {} when the kernel printed none. */
  readonly faults: Readonly<Record<string, number>>;
}

export type AccessLocality =
  | {
      readonly kind: 'ok';
      /** Share of the faults on memory of the node each faulting thread runs on (1 = all local). */
      readonly local: number;
      /** Events counted: hinting faults, or DRAM accesses sampled (source 'pmu'). */
      readonly faults: number;
      /** Node id -> events by the node of the memory, all threads together (pmu: those whose node is known). */
      readonly nodes: Readonly<Record<string, number>>;
      readonly source: 'numa-faults' | 'pmu';
    }
  | { readonly kind: 'unavailable'; readonly why: string };

/** One memory-access sample of the PMU (perf_event_open's PERF_RECORD_SAMPLE). */
export interface MemSample {
  readonly pid: number;
  readonly tid: number;
  /** The CPU it was taken on; -1 when not sampled. */
  readonly cpu: number;
  /** Virtual address of the data accessed (0 when not sampled). */
  readonly addr: bigint;
  /** Physical address (0 when not sampled, or hidden: perf_event_paranoid). */
  readonly physAddr: bigint;
  /** union perf_mem_data_src as a 64-bit value. */
  readonly dataSrc: bigint;
  readonly weight: bigint;
  /** Served from local or remote DRAM (decoded from dataSrc); null: a cache hit or no source. */
  readonly side: 'local' | 'remote' | null;
}
