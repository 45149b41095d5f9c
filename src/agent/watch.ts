// The agent's watch between passes (policy/agent/watch.ts says what it reads and why): one read
// of /proc/loadavg a tick while no process is created, and when some are, one read of the stat
// of each new one (and of the young ones it follows). tick() says whether a process became worth
// a pass: then the agent runs one at once, not at the end of its sleep.
import { pidsSince, WATCH_NEW_MAX, WATCH_YOUNG_MAX, WATCH_YOUNG_TICKS, watchVerdict } from '../policy/agent/watch.js';
import { KeptFile } from '../sysfs/kept_file.js';
import { parseLastPid } from '../sysfs/proc_loadavg.js';
import { ProcStatFiles, type StatFields } from '../sysfs/proc_stat_files.js';
import { readProcTgid } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

export interface WatchOptions {
  readonly minRssBytes: number;
  readonly pageSize: number;
  readonly selfPid: number;
}

interface Young {
  readonly start: number;
  ticks: number;
}

export class ProcessWatch {
  private readonly loadavg: KeptFile;
  private readonly stats: ProcStatFiles;
  private readonly st: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0, faults: 0 };
  private last: number | null = null;
  private readonly young = new Map<number, Young>();
  /** Processes read in the last tick (tests and the bench: what a tick cost). */
  lastReads = 0;

  constructor(
    private readonly root: SysRoot,
    private readonly o: WatchOptions,
  ) {
    this.loadavg = new KeptFile(root, 'proc/loadavg');
    this.stats = new ProcStatFiles(root);
  }

  /** Processes followed now (young and under --min-rss). */
  get following(): number {
    return this.young.size;
  }

  /** One look; true when a process not seen large before is at --min-rss or more now (a pass should run now). */
  tick(): boolean {
    this.lastReads = 0;
    const last = this.lastPid();
    let wake = false;
    for (const [pid, y] of this.young) {
      if (++y.ticks > WATCH_YOUNG_TICKS) this.drop(pid);
      else wake = this.look(pid, y.start) || wake;
    }
    if (last !== null && this.last !== null)
      for (const pid of pidsSince(this.last, last, WATCH_NEW_MAX))
        if (!this.young.has(pid)) wake = this.look(pid, null) || wake;
    if (last !== null) this.last = last;
    return wake;
  }

  private lastPid(): number | null {
    const text = this.loadavg.read();
    if (text === null) return null;
    try {
      return parseLastPid(text);
    } catch {
      return null; // an odd line: this tick looks at the young ones only
    }
  }

  /** Stops following a process (its stat file, kept open while it is followed, is closed). */
  private drop(pid: number): void {
    this.young.delete(pid);
    this.stats.forget(pid);
  }

  /** Reads one process's stat: true when it wakes the agent; follows it while it is young and small. */
  private look(pid: number, start: number | null): boolean {
    this.lastReads++;
    const read = this.stats.read(pid, this.st);
    if (read !== 'read' || (start !== null && this.st.startTicks !== start) || pid === this.o.selfPid) {
      this.drop(pid);
      return false;
    }
    const verdict = watchVerdict(
      { rssBytes: this.st.rssPages * this.o.pageSize, vsizeBytes: this.st.vsizeBytes },
      this.o.minRssBytes,
    );
    if (verdict === 'follow') {
      if (start === null && this.young.size < WATCH_YOUNG_MAX)
        this.young.set(pid, { start: this.st.startTicks, ticks: 0 });
      if (!this.young.has(pid)) this.stats.forget(pid);
      return false;
    }
    this.drop(pid);
    if (verdict === 'drop') return false;
    // A thread's id opens /proc/TID too: a new thread of a large process (or of the agent) is not a new process.
    const tgid = readProcTgid(this.root, pid);
    return tgid === pid;
  }
}
