// The agent's first and cheapest look at each process, one read of /proc/PID/stat a pass:
// its size (rss), its CPU time (all its threads'), and whether it is a kernel thread (no mm:
// vsize 0). What it rules out is read no further:
//   kernel   a kernel thread: not even its stat is read again for KERNEL_RECHECK passes
//   small    under the --min-rss bar
//   idle     its CPU over the window is under the --min-cpu bar (its threads' stat, hundreds on
//            a JVM, is not read; when it gets busy again it is baselined first)
// A pass thus reads what can have changed; a server of idle processes costs a stat each.
import type { SysRoot } from '../sysfs/root.js';
import { CLOCK_TICKS_PER_SECOND, readProcStat } from '../sysfs/proc_task_stat.js';

/** Passes a kernel thread is trusted to stay one (its pid can only be reused after it exits). */
export const KERNEL_RECHECK = 12;

export type Screened = 'gone' | 'kernel' | 'small' | 'idle' | 'read';

export interface ProcScreenOptions {
  readonly minRssBytes: number;
  readonly pageSize: number;
  /** CPUs under which a process is idle; 0: never. */
  readonly idleBelow: number;
}

export class ProcScreen {
  private pass = 0;
  /** pid -> pass it was last seen a kernel thread. */
  private readonly kernel = new Map<number, number>();
  /** pid -> its starttime and CPU ticks at the last pass. */
  private ticks = new Map<number, { start: number; ticks: number }>();
  private next = new Map<number, { start: number; ticks: number }>();

  constructor(private readonly root: SysRoot, private readonly o: ProcScreenOptions) {}

  /** Starts a pass (windowSeconds: since the last one; 0 before any). */
  begin(): void {
    this.pass++;
    this.next = new Map();
  }

  check(pid: number, windowSeconds: number): Screened {
    const k = this.kernel.get(pid);
    if (k !== undefined && this.pass - k < KERNEL_RECHECK) return 'kernel';
    const st = readProcStat(this.root, pid);
    if (st === null) return 'gone';
    if (st.vsizeBytes === 0) {
      this.kernel.set(pid, this.pass);
      return 'kernel';
    }
    this.kernel.delete(pid);
    if (st.rssPages * this.o.pageSize < this.o.minRssBytes) return 'small';
    const before = this.ticks.get(pid);
    this.next.set(pid, { start: st.startTicks, ticks: st.cpuTicks });
    if (this.o.idleBelow <= 0 || before === undefined || before.start !== st.startTicks || windowSeconds <= 0) return 'read';
    return (st.cpuTicks - before.ticks) / CLOCK_TICKS_PER_SECOND / windowSeconds < this.o.idleBelow ? 'idle' : 'read';
  }

  /** Ends a pass: what was not seen is forgotten. */
  end(listed: ReadonlySet<number>): void {
    this.ticks = this.next;
    for (const pid of this.kernel.keys()) if (!listed.has(pid)) this.kernel.delete(pid);
  }
}
