// What tells where a workload runs: its large processes and the CPUs and memory nodes they
// may use (/proc/PID/status). Plain data for policy/knowledge/placement.ts.

/** Processes smaller than this say nothing about the workload's placement. */
export const LARGE_PROCESS_BYTES = 2 ** 30;

export interface PlacedProcess {
  readonly pid: number;
  readonly comm: string;
  /** Resident memory (VmRSS). */
  readonly totalBytes: number;
  readonly cpusAllowed: readonly number[] | null;
  readonly memsAllowed: readonly number[] | null;
  /**
   * The memory policy that holds most of its resident memory, as numa_maps prints it ("bind:1",
   * "interleave=static:0-3", "default"), and that share (0..1); null when not read (only the
   * largest process's numa_maps is read: the kernel walks its page tables for it).
   */
  readonly memPolicy?: MemPolicyShare | null;
}

export interface MemPolicyShare {
  readonly text: string;
  readonly share: number;
}
