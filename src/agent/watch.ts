// The agent's watch between passes (policy/agent/watch.ts says what it reads and why): the
// process events (proc_events.ts) bring the pids of new processes; one read of the stat of each
// (and of the young ones it follows, each --watch). see() says whether a process became worth a
// pass: then the agent runs one at once, not at the end of its sleep.
import { formatCpuList } from '../model/cpuset.js';
import {
  followTicks,
  newPids,
  WATCH_NEW_MAX,
  WATCH_PINNED_TICKS,
  WATCH_YOUNG_MAX,
  type WatchBars,
  watchVerdict,
} from '../policy/agent/watch.js';
import { namedOut } from '../policy/agent/candidates.js';
import type { PolicyOptions } from '../policy/agent/types.js';
import { listPids, readCmdline } from '../sysfs/proc_list.js';
import type { EventBatch } from './proc_events.js';
import { ProcStatFiles, type StatFields } from '../sysfs/proc_stat_files.js';
import { CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import { readUptime } from '../sysfs/proc_uptime.js';
import type { SysRoot } from '../sysfs/root.js';

/** A first look judges CPU over the process's life only once it has lived this long. */
const MIN_LIFE_SECONDS = 0.5;

/** The last `max` pids of a batch (the newest forks), newest first. */
function newestFirst(pids: readonly number[], max: number): number[] {
  const out: number[] = [];
  for (let i = pids.length - 1; i >= 0 && out.length < max; i--) if (!out.includes(pids[i]!)) out.push(pids[i]!);
  return out;
}

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
  private readonly stats: ProcStatFiles;
  private readonly st: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0, faults: 0 };
  /** The pids of the last listing of /proc (after lost events); null before the first. */
  private listed: ReadonlySet<number> | null = null;
  private readonly young = new Map<number, Followed>();
  /** Processes whose CPU affinity it follows (followAffinity): their start time, the CPUs the pass saw, ticks. */
  private readonly pinned = new Map<number, { start: number; cpus: string; ticks: number }>();
  private readonly maxTicks: number;
  /** /proc/uptime this tick, read for the first process old enough to ask (undefined: not yet). */
  private uptime: number | null | undefined;
  /** Processes read in the last look (tests and the bench: what a look cost). */
  lastReads = 0;
  /** New processes the last look kept (followed, or woke the agent): 0 when all were dropped at once. */
  lastCounted = 0;
  /** The processes the last look woke the agent for. */
  lastWoke: number[] = [];

  constructor(
    private readonly root: SysRoot,
    private readonly o: WatchOptions,
  ) {
    this.stats = new ProcStatFiles(root, { probeGone: true });
    this.maxTicks = followTicks(o);
  }

  /** Processes followed now (new, and not yet large, busy and old enough). */
  get following(): number {
    return this.young.size + this.pinned.size;
  }

  /**
   * After a pass it woke the agent for: a process that pass left bound to `cpus` by its user is
   * followed (its affinity read each tick, WATCH_PINNED_TICKS at most); once that changes, the
   * agent is woken again. A program started under taskset or numactl often drops the binding
   * once it has set itself up: without this, its first decision waited for a pass (up to
   * --max-interval).
   */
  followAffinity(pid: number, cpus: readonly number[]): void {
    if (!this.lastWoke.includes(pid) || this.pinned.size >= WATCH_YOUNG_MAX) return;
    if (this.stats.read(pid, this.st) !== 'read') return;
    this.pinned.set(pid, { start: this.st.startTicks, cpus: formatCpuList(cpus), ticks: 0 });
  }

  /** True when a followed process's affinity changed (it is then left to the pass that follows). */
  private affinityChanged(): boolean {
    let changed = false;
    for (const [pid, p] of this.pinned) {
      this.lastReads++;
      const status = ++p.ticks > WATCH_PINNED_TICKS ? null : readProcStatus(this.root, pid);
      // Its stat only while it is followed: the same process (start time), not a reused pid.
      const same = status !== null && this.stats.read(pid, this.st) === 'read' && this.st.startTicks === p.start;
      if (!same || status === null || status.cpusAllowed === null) this.unpin(pid);
      else if (formatCpuList(status.cpusAllowed) !== p.cpus) {
        this.unpin(pid);
        this.lastWoke.push(pid);
        changed = true;
      }
    }
    return changed;
  }

  /**
   * One look at `nowMs`, with what the process events brought since the last (null: nothing,
   * only the followed ones are read again; 'lost': some forks were dropped, /proc is listed).
   * True when a process is large, busy and old enough now (a pass should run now).
   */
  see(batch: EventBatch, nowMs: number): boolean {
    this.lastReads = 0;
    this.lastCounted = 0;
    this.lastWoke = [];
    this.uptime = undefined;
    let wake = this.affinityChanged();
    for (const [pid, f] of this.young) {
      if (++f.ticks > this.maxTicks) this.drop(pid);
      else wake = this.wakes(pid, this.look(pid, f, nowMs)) || wake;
    }
    const fresh = batch === 'lost' ? this.listNew() : batch === null ? [] : newestFirst(batch, WATCH_NEW_MAX);
    for (const pid of fresh) {
      if (this.young.has(pid)) continue;
      const woke = this.wakes(pid, this.look(pid, null, nowMs));
      if (woke || this.young.has(pid)) this.lastCounted++;
      wake = woke || wake;
    }
    return wake;
  }

  private unpin(pid: number): void {
    this.pinned.delete(pid);
    if (!this.young.has(pid)) this.stats.forget(pid);
  }

  private wakes(pid: number, wake: boolean): boolean {
    if (wake) this.lastWoke.push(pid);
    return wake;
  }

  /** The processes in /proc the last listing did not hold (at the first, the newest of all). */
  private listNew(): number[] {
    const listed = listPids(this.root);
    const before = this.listed ?? new Set<number>();
    this.listed = new Set(listed);
    return newPids(listed, before, WATCH_NEW_MAX);
  }

  /** Stops following a process (its stat file, kept open while it is followed, is closed). */
  private drop(pid: number): void {
    this.young.delete(pid);
    if (!this.pinned.has(pid)) this.stats.forget(pid);
  }

  private ageOf(start: number): number | null {
    if (this.uptime === undefined) this.uptime = readUptime(this.root);
    return this.uptime === null ? null : this.uptime - start / CLOCK_TICKS_PER_SECOND;
  }

  /**
   * CPUs it used: since the last look; at its first, over its life when it has lived at least
   * half a second (the events bring a process a --watch after its fork), else unknown. Never
   * more than its threads can use.
   */
  private cpuOf(f: Followed | null, start: number, nowMs: number): number | null {
    const threads = Math.max(1, this.st.threads);
    if (f !== null) {
      const seconds = (nowMs - f.atMs) / 1000;
      return seconds <= 0
        ? null
        : Math.min(threads, (this.st.cpuTicks - f.cpuTicks) / CLOCK_TICKS_PER_SECOND / seconds);
    }
    const age = this.ageOf(start);
    return age === null || age < MIN_LIFE_SECONDS
      ? null
      : Math.min(threads, this.st.cpuTicks / CLOCK_TICKS_PER_SECOND / age);
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
    const rssBytes = this.st.rssPages * this.o.pageSize;
    const verdict = watchVerdict(
      {
        rssBytes,
        vsizeBytes: this.st.vsizeBytes,
        cpu: rssBytes < this.o.minRssBytes ? null : this.cpuOf(f, start, nowMs),
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
