// The agent's first and cheapest look at each process, one read of /proc/PID/stat a pass:
// its size (rss), its CPU time (all its threads'), and whether it is a kernel thread (no mm:
// vsize 0). What it rules out is read no further:
//   kernel   a kernel thread: not even its stat is read again for KERNEL_RECHECK passes
//   small    under the --min-rss bar
//   idle     its CPU over the window is under the --min-cpu bar (its threads' stat, hundreds on
//            a JVM, is not read; when it gets busy again it is baselined first)
// A pass thus reads what can have changed; a server of idle processes costs a stat each.
import type { SysRoot } from '../sysfs/root.js';
import { CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import { ProcStatFiles, type StatFields } from '../sysfs/proc_stat_files.js';

/** Passes a kernel thread is trusted to stay one (its pid can only be reused after it exits). */
export const KERNEL_RECHECK = 12;

export type Screened = 'gone' | 'kernel' | 'small' | 'idle' | 'read';

export interface ProcScreenOptions {
  readonly minRssBytes: number;
  readonly pageSize: number;
  /** CPUs under which a process is idle; 0: never. */
  readonly idleBelow: number;
}

/** A process's starttime and CPU ticks at the pass it was last read, updated in place. */
interface Seen {
  start: number;
  ticks: number;
  pass: number;
}

export class ProcScreen {
  private pass = 0;
  /** pid -> pass it was last seen a kernel thread. */
  private readonly kernel = new Map<number, number>();
  /** pid -> what the last pass read of it (entries not read at the last pass are stale). */
  private readonly seen = new Map<number, Seen>();
  private readonly files: ProcStatFiles;
  private readonly st: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0 };

  constructor(
    root: SysRoot,
    private readonly o: ProcScreenOptions,
  ) {
    this.files = new ProcStatFiles(root);
  }

  /** Starts a pass. */
  begin(): void {
    this.pass++;
  }

  /** One process this pass (windowSeconds: since the last pass; 0 before any). */
  check(pid: number, windowSeconds: number): Screened {
    const k = this.kernel.get(pid);
    if (k !== undefined && this.pass - k < KERNEL_RECHECK) return 'kernel';
    const st = this.st;
    if (!this.files.read(pid, st)) {
      this.files.forget(pid);
      return 'gone';
    }
    if (st.vsizeBytes === 0) {
      this.kernel.set(pid, this.pass);
      this.files.forget(pid); // read once every KERNEL_RECHECK passes: not worth a file kept open
      return 'kernel';
    }
    this.kernel.delete(pid);
    if (st.rssPages * this.o.pageSize < this.o.minRssBytes) return 'small';
    const before = this.seen.get(pid);
    const known = before !== undefined && before.pass === this.pass - 1 && before.start === st.startTicks;
    const delta = known ? st.cpuTicks - before.ticks : 0;
    if (before === undefined) this.seen.set(pid, { start: st.startTicks, ticks: st.cpuTicks, pass: this.pass });
    else {
      before.start = st.startTicks;
      before.ticks = st.cpuTicks;
      before.pass = this.pass;
    }
    if (this.o.idleBelow <= 0 || !known || windowSeconds <= 0) return 'read';
    return delta / CLOCK_TICKS_PER_SECOND / windowSeconds < this.o.idleBelow ? 'idle' : 'read';
  }

  /** Ends a pass: what was not seen is forgotten (its file closed). */
  end(listed: ReadonlySet<number>): void {
    for (const [pid, s] of this.seen) if (s.pass !== this.pass) this.seen.delete(pid);
    for (const pid of this.kernel.keys()) if (!listed.has(pid)) this.kernel.delete(pid);
    this.files.retain(listed);
  }
}
