// State the agent keeps per process between passes (cooldowns, the last logged outcome), keyed
// on pid + start time as the process sampler keys its own (discover/process_sampler.ts): a pid
// the kernel hands to a new process is another process and inherits nothing, and a process that
// is gone is dropped at the next pass, so what is kept is bounded by the processes alive now.

/** A process as the agent knows it: its pid and its start time (/proc/PID/stat field 22, in ticks). */
export interface ProcessId {
  readonly pid: number;
  readonly start: number;
}

export class PerProcess<T> {
  private readonly m = new Map<number, { start: number; value: T }>();

  /** What is kept for this process; undefined for another process that had its pid. */
  get(who: ProcessId): T | undefined {
    const e = this.m.get(who.pid);
    return e !== undefined && e.start === who.start ? e.value : undefined;
  }

  set(who: ProcessId, value: T): void {
    this.m.set(who.pid, { start: who.start, value });
  }

  /**
   * Keeps only the processes still there: `startNow(pid)` is the start time of the process
   * that has the pid now, null when none does.
   */
  retain(startNow: (pid: number) => number | null): void {
    for (const [pid, e] of this.m) if (startNow(pid) !== e.start) this.m.delete(pid);
  }

  get size(): number {
    return this.m.size;
  }
}
