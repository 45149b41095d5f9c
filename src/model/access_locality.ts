// Access locality: which nodes a process's memory accesses hit lately, as opposed to where its
// memory sits (placement locality). From the kernel's NUMA-balancing hinting faults per task
// (sysfs/proc_sched_numa.ts); a PMU source (perf mem sampling) would give the same shape.

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
      readonly faults: number;
      /** Node id -> faults, all threads together. */
      readonly nodes: Readonly<Record<string, number>>;
      readonly source: 'numa-faults';
    }
  | { readonly kind: 'unavailable'; readonly why: string };
