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
}
