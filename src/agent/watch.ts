// The agent's watch between passes (policy/agent/watch.ts says what it reads and why): one read
// of /proc/loadavg a tick while no process is created, and when some are, one read of the stat
// of each new one (and of the young ones it follows). tick() says whether a process became worth
// a pass: then the agent runs one at once, not at the end of its sleep.
import {
  followTicks,
  newPids,
  WATCH_NEW_MAX,
  WATCH_YOUNG_MAX,
  type WatchBars,
  watchVerdict,
} from '../policy/agent/watch.js';
import { namedOut } from '../policy/agent/candidates.js';
import type { PolicyOptions } from '../policy/agent/types.js';
import { KeptFile } from '../sysfs/kept_file.js';
import { listPids, readCmdline } from '../sysfs/proc_list.js';
import { parseLastPid } from '../sysfs/proc_loadavg.js';
import { ProcStatFiles, type StatFields } from '../sysfs/proc_stat_files.js';
import { CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import { readUptime } from '../sysfs/proc_uptime.js';
import type { SysRoot } from '../sysfs/root.js';

export interface WatchOptions extends WatchBars, Pick<PolicyOptions, 'include' | 'exclude'> {
  readonly pageSize: number;
  readonly selfPid: number;
  /** The time between ticks (how long a new process is followed is counted in ticks). */
  readonly watchMs: number;
}

interface Followed {
  readonly start: number;
  ticks: number;
  cpuTicks: number;
  atMs: number;
}

export class ProcessWatch {
  private readonly loadavg: KeptFile;
  private readonly stats: ProcStatFiles;
  private readonly st: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0, faults: 0 };
  private last: number | null = null;
  /** The pids of the last listing of /proc; null before the first. */
  private listed: ReadonlySet<number> | null = null;
  private readonly young = new Map<number, Followed>();
  private readonly maxTicks: number;
  /** /proc/uptime this tick, read for the first process old enough to ask (undefined: not yet). */
  private uptime: number | null | undefined;
  /** Processes read in the last tick (tests and the bench: what a tick cost). */
  lastReads = 0;

  constructor(
    private readonly root: SysRoot,
    private readonly o: WatchOptions,
  ) {
    this.loadavg = new KeptFile(root, 'proc/loadavg');
    this.stats = new ProcStatFiles(root);
    this.maxTicks = followTicks(o);
  }

  /** Processes followed now (new, and not yet large, busy and old enough). */
  get following(): number {
    return this.young.size;
  }

  /** One look at `nowMs`; true when a new process is large, busy and old enough now (a pass should run now). */
  tick(nowMs: number): boolean {
    this.lastReads = 0;
    this.uptime = undefined;
    const last = this.lastPid();
    let wake = false;
    for (const [pid, f] of this.young) {
      if (++f.ticks > this.maxTicks) this.drop(pid);
      else wake = this.look(pid, f, nowMs) || wake;
    }
    // No pid allocated since the last look (without /proc/loadavg: always listed): nothing new.
    if (last !== null && last === this.last) return wake;
    this.last = last;
    const listed = listPids(this.root);
    const before = this.listed;
    this.listed = new Set(listed);
    if (before !== null)
      for (const pid of newPids(listed, before, WATCH_NEW_MAX))
        if (!this.young.has(pid)) wake = this.look(pid, null, nowMs) || wake;
    return wake;
  }

  private lastPid(): number | null {
    const text = this.loadavg.read();
    if (text === null) return null;
    try {
      return parseLastPid(text);
    } catch {
      return null; // an odd line: this tick looks at the followed ones only
    }
  }

  /** Stops following a process (its stat file, kept open while it is followed, is closed). */
  private drop(pid: number): void {
    this.young.delete(pid);
    this.stats.forget(pid);
  }

  private ageOf(start: number): number | null {
    if (this.uptime === undefined) this.uptime = readUptime(this.root);
    return this.uptime === null ? null : this.uptime - start / CLOCK_TICKS_PER_SECOND;
  }

  /** Reads one process's stat: true when it wakes the agent; follows it while it is not yet worth a pass. */
  private look(pid: number, f: Followed | null, nowMs: number): boolean {
    this.lastReads++;
    const { read, comm } = this.stats.readNamed(pid, this.st);
    if (read !== 'read' || (f !== null && this.st.startTicks !== f.start) || pid === this.o.selfPid) {
      this.drop(pid);
      return false;
    }
    const start = this.st.startTicks;
    const seconds = f === null ? 0 : (nowMs - f.atMs) / 1000;
    const verdict = watchVerdict(
      {
        rssBytes: this.st.rssPages * this.o.pageSize,
        vsizeBytes: this.st.vsizeBytes,
        cpu: f === null || seconds <= 0 ? null : (this.st.cpuTicks - f.cpuTicks) / CLOCK_TICKS_PER_SECOND / seconds,
        ageSeconds: () => this.ageOf(start),
      },
      this.o,
    );
    if (verdict === 'follow') {
      if (f !== null) {
        f.cpuTicks = this.st.cpuTicks;
        f.atMs = nowMs;
      } else if (this.young.size < WATCH_YOUNG_MAX)
        this.young.set(pid, { start, ticks: 0, cpuTicks: this.st.cpuTicks, atMs: nowMs });
      if (!this.young.has(pid)) this.stats.forget(pid);
      return false;
    }
    this.drop(pid);
    // A process --include or --exclude leaves out is not worth a pass (its command line read only now: rarely).
    return (
      verdict === 'wake' && namedOut({ comm: comm ?? '', cmdline: readCmdline(this.root, pid) ?? '' }, this.o) === null
    );
  }
}
