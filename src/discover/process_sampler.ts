// The one process sampler: stat, top, doctor, snapshot, the agent (processes and the members of
// cgroup units) and serve read processes only through it. A pass reads in stages, each only for
// the processes the one before kept:
//   1. stat     /proc/PID/stat (kept open on the live system): kernel threads, processes without
//               resident memory, under the size bar or idle are read no further (and, for the
//               agent, their stat only every few passes: options.recheckEvery)
//   2. status   /proc/PID/status and cmdline (read once a pass): skip and prescreen
//   3. threads  each thread's /proc/PID/task/TID/stat (not read again while the process used no
//               CPU since): CPU time per node over the window; select. With threadsLater, after
//               stage 4 and only for the samples a caller asks for (withThreads)
//   4. memory   numa_maps (costly: the kernel walks the page tables), reused while the process's
//               RSS holds when asked (serve)
// What it keeps between passes is keyed on pid + start time, so a reused pid is a new process,
// and only for processes listed at the last pass (the others are dropped). It keeps per process a
// few numbers and its threads' ticks, never a list of CPUs: a node set is model/cpuset.ts's
// nodesOf, locality and ranking src/policy/locality.ts's. A pass counts the processes it could
// not read and why (permission, vanished): doctor and serve say how much they did not see.
// Files: the options and counts (sampler_options.ts), stage 2 for a sample taken without it
// (sampler_status.ts), stage 3's thread readings (sampler_threads.ts); the passes and stages 1
// and 4, which keep what is known between passes, here.
import type { ProcessMemory, ProcessSample } from '../model/stat.js';
import { nodesOf } from '../model/cpuset.js';
import { numaMapsPath, readNumaMapsText } from '../sysfs/proc_numa_maps.js';
import { commAsName, listPids, readCmdline } from '../sysfs/proc_list.js';
import { isRefused } from '../model/fact.js';
import { commBytesOf, ProcStatFiles, type StatFields, type StatRead } from '../sysfs/proc_stat_files.js';
import { type ProcStatus, readProcStatus, readProcStatusFact } from '../sysfs/proc_status.js';
import { CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import type { SysRoot } from '../sysfs/root.js';
import { readPageSize } from './page_size.js';
import { memoryFromNumaMaps } from './processes.js';
import type { PassCounts, PassOptions, ProcessSamplerOptions, ThreadTicks, Unreadable } from './sampler_options.js';
import { cpuSecondsByNode, cpuSecondsSince, readCpuNodes, readThreadTicks, threadUseOf } from './sampler_threads.js';
import { noResidentMemory, readDetails } from './sampler_status.js';

// The stages' own files, as the sampler's callers have always imported them from here.
export type * from './sampler_options.js';
export { cpuSecondsByNode, readCpuNodes, readDetails, readThreadTicks, threadUseOf };

/** Passes a kernel thread is trusted to stay one (its pid can only be reused after it exits). */
export const KERNEL_RECHECK = 12;

/**
 * A process's HugetlbPages is read again after this long even when nothing says it changed: pages
 * leave a mapping without a fault or an mmap of its own (another process punches a hole in the
 * hugetlbfs file, MADV_DONTNEED since 5.18).
 */
export const HUGETLB_TTL_MS = 30_000;

/** What is kept of a process between passes (only of those read at the last pass). */
interface Known {
  start: number;
  /** The process's utime + stime at the last pass; -1 unknown (no stat file: an older capture). */
  ticks: number;
  /** Its threads' ticks at the last pass; null when they were not read then. */
  threads: Map<number, ThreadTicks> | null;
  pass: number;
  maps: { rssPages: number; at: number; memory: ProcessMemory } | null;
  /** The status read at the last pass and the resident pages then (options.reuseStatus). */
  status: { rssPages: number; status: ProcStatus } | null;
  /** HugetlbPages (options.hugetlb) and what it could only change with: vsize, faults (read at `at`). */
  huge: { vsizeBytes: number; faults: number; at: number; bytes: number } | null;
  /** When its stat was last read (nowMs), and whether stage 1 stopped it then (options.recheckEvery). */
  at: number;
  screened: boolean;
  /** Stage 3 left to withThreads at this pass (options.threadsLater): what it needs then. */
  later: { readonly c: Candidate; readonly baselineOnly: boolean } | null;
}

const EMPTY: ProcessMemory = { kind: 'ok', nodes: {}, totalBytes: 0, policies: {} };

/** One object a process that passed stage 1 (10,000 a serve scrape on a large machine): its stat's two fields used later, flat. */
interface Candidate {
  readonly pid: number;
  readonly rssPages: number;
  /** Threads, from stat (status's is used when status is read). */
  readonly threads: number;
  /** utime + stime; -1 unknown (an older capture). */
  readonly cpuTicks: number;
  /** Its start time (stat's starttime): what is known of it is keyed on it. */
  readonly startTicks: number;
  readonly bound: number;
  /** Status already read at stage 1 (hugetlb, or an older capture without stat). */
  readonly status: ProcStatus | null;
  /** Known from an earlier pass (same pid and start time). */
  readonly known: boolean;
  /** Its threads' ticks and its own at the last pass; null when its threads were not read then. */
  readonly prior: { threads: Map<number, ThreadTicks>; ticks: number } | null;
}

const NO_THREADS: ReadonlyMap<number, ThreadTicks> = new Map();

export class ProcessSampler {
  private readonly cpuNode: Map<number, number>;
  private readonly files: ProcStatFiles;
  private known = new Map<number, Known>();
  /** pid -> pass it was last seen a kernel thread (its stat is read again every KERNEL_RECHECK passes). */
  private readonly kernel = new Map<number, number>();
  private pass = 0;
  private prevAt: number | null = null;
  private tally = { scanned: 0, deferred: 0, mapped: 0, permission: 0, hidden: 0, vanished: 0, noMemory: 0, kept: 0 };
  private baselineCount = 0;
  private listedNow: ReadonlySet<number> = new Set();
  private namesNow: { pid: number; name: string }[] = [];
  /** The comms of the names asked for, as bytes (options.names a set): the others are not decoded. */
  private readonly commBytes: readonly Uint8Array[] | null;

  constructor(
    private readonly root: SysRoot,
    private readonly o: ProcessSamplerOptions = {},
  ) {
    const { statusLater, skip, prescreen, select, reuseStatus, hugetlb, memory } = o;
    const oneNode = typeof memory === 'object' && 'oneNode' in memory;
    if (statusLater && (skip || prescreen || select || reuseStatus || hugetlb || oneNode))
      throw new Error('process sampler: statusLater with an option that reads status');
    if (o.threadsLater && (select || o.threads === false))
      throw new Error('process sampler: threadsLater with select or without threads');
    this.cpuNode = readCpuNodes(root);
    this.files = new ProcStatFiles(root);
    this.commBytes = typeof o.names === 'object' ? commBytesOf(o.names) : null;
  }

  /** Processes the last pass only took a baseline of (their threads not read the pass before). */
  get baselines(): number {
    return this.baselineCount;
  }

  /** Every pid the last pass listed (alive then, whatever it read of them). */
  get listed(): ReadonlySet<number> {
    return this.listedNow;
  }

  /**
   * The start time (ticks since boot) of the process that had `pid` at the last pass, null when
   * it was not read (gone, or a kernel thread): with the pid, who a process is (a pid is reused).
   */
  startOf(pid: number): number | null {
    return this.listedNow.has(pid) ? (this.known.get(pid)?.start ?? null) : null;
  }

  /**
   * The name of every process whose stat the last pass read, in pid order (options.names; else
   * empty): all of them on a pass that reads every stat (not those left to their turn by
   * options.recheckEvery, nor kernel threads between their rechecks).
   */
  get names(): readonly { readonly pid: number; readonly name: string }[] {
    return this.namesNow;
  }

  /** Processes the last pass could not read, by why. */
  get unreadable(): Unreadable {
    return { permission: this.tally.permission, hidden: this.tally.hidden, vanished: this.tally.vanished };
  }

  /** Processes it keeps state of (those listed at the last pass). */
  get tracked(): number {
    return this.known.size;
  }

  /** What the last pass read, and what it could not. */
  get counts(): PassCounts {
    return this.tally;
  }

  /** One pass: every process that got through every stage, in pid order. */
  sample(nowMs: number): ProcessSample[] {
    return [...this.run({ nowMs })];
  }

  /**
   * One pass, lazily: a caller that stops iterating (serve's top K is certain) ends the pass there;
   * what was read is kept for the next one.
   */
  *run(p: PassOptions): Generator<ProcessSample, void, undefined> {
    if (this.o.onePass === true && this.pass > 0) throw new Error('process sampler: a second pass with onePass');
    this.pass++;
    this.tally = { scanned: 0, deferred: 0, mapped: 0, permission: 0, hidden: 0, vanished: 0, noMemory: 0, kept: 0 };
    this.baselineCount = 0;
    const windowSeconds = this.prevAt === null ? 0 : (p.nowMs - this.prevAt) / 1000;
    const explicit = p.pids ?? this.o.pids;
    const listed = new Set(explicit ?? listPids(this.root));
    this.listedNow = listed;
    try {
      const cands = this.stat(listed, { residentOnly: explicit === undefined, windowSeconds, nowMs: p.nowMs });
      this.tally.kept = cands.length;
      if (p.largestFirst) cands.sort((a, b) => b.bound - a.bound || a.pid - b.pid);
      for (const c of cands) {
        if (p.largestFirst?.stop({ pid: c.pid, bound: c.bound })) break;
        const s = this.rest(c, { windowSeconds, nowMs: p.nowMs, residentOnly: explicit === undefined, p });
        if (s !== null) yield s;
      }
    } finally {
      for (const [pid, k] of this.known) if (k.pass !== this.pass && !listed.has(pid)) this.known.delete(pid);
      for (const pid of this.kernel.keys()) if (!listed.has(pid)) this.kernel.delete(pid);
      this.files.retain(listed);
      this.prevAt = p.nowMs;
    }
  }

  /** Stage 1 for every listed process: its stat, and the bars. */
  private stat(
    listed: ReadonlySet<number>,
    t: { residentOnly: boolean; windowSeconds: number; nowMs: number },
  ): Candidate[] {
    const out: Candidate[] = [];
    const st: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0, faults: 0 };
    const every = this.o.recheckEvery ?? 1;
    for (const pid of listed) {
      const k = this.kernel.get(pid);
      if (k !== undefined && this.pass - k < KERNEL_RECHECK) continue;
      // Stopped at stage 1 at its last read: read again at its turn (options.recheckEvery).
      if (every > 1 && (pid + this.pass) % every !== 0 && this.known.get(pid)?.screened === true) {
        this.tally.deferred++;
        continue;
      }
      const read = this.readStage1(pid, st);
      if (read === null) continue;
      const status = read === 'stat' ? null : read;
      this.tally.scanned++;
      if (st.vsizeBytes === 0 && status === null && t.residentOnly) {
        this.kernel.set(pid, this.pass);
        this.files.forget(pid); // read once every KERNEL_RECHECK passes: not worth a file kept open
        continue;
      }
      this.kernel.delete(pid);
      const c = this.screen(pid, st, status, t);
      if (c !== null) out.push(c);
    }
    return out;
  }

  /**
   * One process's stat into `st`: 'stat' when read; its status when a capture's status stood in
   * for a stat it lacks; null when refused or gone (counted).
   */
  private readStage1(pid: number, st: StatFields): 'stat' | ProcStatus | null {
    const got = this.readStat(pid, st);
    if (got === 'read') return 'stat';
    this.files.forget(pid);
    if (got === 'refused') {
      this.tally.hidden++;
      return null;
    }
    // A capture taken before snapshots carried /proc/PID/stat has only status: it stands in
    // (CPU ticks unknown). On the live system a missing stat is a process that exited.
    const status = this.root.isReal ? null : readProcStatus(this.root, pid);
    if (status === null) {
      this.tally.vanished++;
      // Gone, though still listed: its pid is reused already (an open stat of the old one
      // reads ESRCH) or is about to be. What was known of it goes, so that the next process
      // with this pid is read as a new one, not left to the old one's turn (recheckEvery).
      this.known.delete(pid);
      return null;
    }
    fromStatus(status, st, this.pageSize());
    this.keepName(pid, status.name);
    return status;
  }

  /** Stage 1's bars for a process read (not a kernel thread): what it keeps of it, and a candidate when it passes them. */
  private screen(
    pid: number,
    st: StatFields,
    read: ProcStatus | null,
    { residentOnly, windowSeconds, nowMs }: { residentOnly: boolean; windowSeconds: number; nowMs: number },
  ): Candidate | null {
    let status = read;
    let before = this.known.get(pid);
    if (before !== undefined && before.start !== st.startTicks) {
      this.known.delete(pid); // a reused pid: another process
      before = undefined;
    }
    // Known from here on, read further or not: when it grows or gets busy, its first read is a baseline.
    const idle = this.idle(before, st, { windowSeconds, nowMs });
    const screen = this.o.screen;
    const small =
      (residentOnly && st.rssPages === 0 && this.o.hugetlb !== true) ||
      (screen !== undefined && st.rssPages * this.pageSize() < screen.minRssBytes);
    if (small && this.o.onePass === true) return null; // known for a next pass there will not be
    // One pass: nothing is known before it, and a process is known from the stage that reads it
    // further (rest()), not for each of the thousands past the bars that a pass stopped by
    // largestFirst never reaches (doctor on a machine of big workers: 7,500, 256 read).
    const prior = this.o.onePass === true ? null : this.keep(pid, st, before, nowMs);
    const known = this.known.get(pid);
    // Deferred only once known from an earlier read: a process just started is read at its
    // first two passes (it may not have grown or got busy yet at the first).
    if (known !== undefined) known.screened = before !== undefined;
    if (small || idle) return null;
    if (known !== undefined) known.screened = false;
    let huge = 0;
    if (this.o.hugetlb === true) {
      if (known === undefined) this.keep(pid, st, undefined, nowMs);
      const h = status === null ? this.hugetlb(pid, st, nowMs) : { status, bytes: status.hugetlbBytes ?? 0 };
      status = h.status;
      huge = h.bytes;
    }
    const bound = st.rssPages * this.pageSize() + huge;
    if (residentOnly && bound === 0) return null;
    const { rssPages, cpuTicks, threads, startTicks } = st;
    return { pid, rssPages, cpuTicks, startTicks, threads, bound, status, known: before !== undefined, prior };
  }

  /** A process's stat into `st`, its name kept when asked for (options.names). */
  private readStat(pid: number, st: StatFields): StatRead {
    if (this.o.names === undefined || this.o.names === false) return this.files.read(pid, st);
    const r = this.files.readNamed(pid, st, this.commBytes ?? undefined);
    if (r.comm !== null) this.keepName(pid, commAsName(r.comm));
    return r.read;
  }

  /** Keeps a process's name when every name is asked for, or this one (options.names). */
  private keepName(pid: number, name: string): void {
    const names = this.o.names;
    if (names === true || (names !== undefined && names !== false && names.has(name)))
      this.namesNow.push({ pid, name });
  }

  /**
   * HugetlbPages of a process (not in its RSS), its status read only when the count can have
   * changed: hugetlbfs pages come with a fault (minflt/majflt) and go with an munmap (vsize), or
   * after HUGETLB_TTL_MS, not every status at every scrape while some node has huge pages in
   * use. `status`: the one read now, else null.
   */
  private hugetlb(pid: number, st: StatFields, nowMs: number): { status: ProcStatus | null; bytes: number } {
    const k = this.known.get(pid)!;
    const h = k.huge;
    if (h !== null && h.vsizeBytes === st.vsizeBytes && h.faults === st.faults && nowMs - h.at < HUGETLB_TTL_MS)
      return { status: null, bytes: h.bytes };
    const status = readProcStatus(this.root, pid);
    const bytes = status?.hugetlbBytes ?? 0;
    k.huge = status === null ? null : { vsizeBytes: st.vsizeBytes, faults: st.faults, at: nowMs, bytes };
    return { status, bytes };
  }

  private pageSize(): number {
    return this.o.pageSize ?? this.o.screen?.pageSize ?? readPageSize(this.root);
  }

  /**
   * Under the idle bar since its last read (the last pass, or its last turn when it was left to
   * it: options.recheckEvery): its threads are not read.
   */
  private idle(before: Known | undefined, st: StatFields, t: { windowSeconds: number; nowMs: number }): boolean {
    const bar = this.o.screen?.idleBelow ?? 0;
    if (bar <= 0 || before === undefined || before.ticks < 0 || st.cpuTicks < 0) return false;
    const deferred = before.screened && (this.o.recheckEvery ?? 1) > 1;
    if (before.pass !== this.pass - 1 && !deferred) return false;
    const seconds = before.pass === this.pass - 1 ? t.windowSeconds : (t.nowMs - before.at) / 1000;
    if (seconds <= 0) return false;
    return (st.cpuTicks - before.ticks) / CLOCK_TICKS_PER_SECOND / seconds < bar;
  }

  /**
   * Records stage 1 of this pass and hands back what the last pass read of its threads (their
   * baseline); they are kept again only when this pass reads them (rest()).
   */
  private keep(pid: number, st: StatFields, before: Known | undefined, nowMs: number): Candidate['prior'] {
    if (before === undefined) {
      this.known.set(pid, {
        start: st.startTicks,
        ticks: st.cpuTicks,
        threads: null,
        pass: this.pass,
        maps: null,
        status: null,
        huge: null,
        at: nowMs,
        screened: false,
        later: null,
      });
      return null;
    }
    const prior =
      before.pass === this.pass - 1 && before.threads !== null
        ? { threads: before.threads, ticks: before.ticks }
        : null;
    before.threads = null;
    before.later = null;
    before.ticks = st.cpuTicks;
    before.pass = this.pass;
    before.at = nowMs;
    return prior;
  }

  /** What is known of a process from its stage 1 (a one-pass sampler's, made when it is read further). */
  private knownFrom(c: Candidate, nowMs: number): Known {
    const { cpuTicks, startTicks, threads, rssPages } = c;
    this.keep(c.pid, { cpuTicks, startTicks, threads, rssPages, vsizeBytes: 0, faults: 0 }, undefined, nowMs);
    return this.known.get(c.pid)!;
  }

  /** Stages 2-4 of one process. */
  private rest(
    c: Candidate,
    {
      windowSeconds,
      nowMs,
      residentOnly,
      p,
    }: { windowSeconds: number; nowMs: number; residentOnly: boolean; p: PassOptions },
  ): ProcessSample | null {
    const { pid } = c;
    const k = this.known.get(pid) ?? this.knownFrom(c, nowMs);
    const { prior } = c;
    // A process whose threads were not read at the last pass (new to the bars, skipped, prescreened
    // out) has no earlier ticks: its lifetime CPU is not this window's, so this pass only takes its
    // baseline. A process never seen before counts its whole life (a first pass: no window).
    const baselineOnly = prior === null && c.known;
    if (this.o.skip?.(pid)) return null;
    const status = this.statusOf(c, k, residentOnly);
    if (status === 'drop') return null;
    const later = status === null;
    let cmdline: string | undefined;
    const cmd = () => (cmdline ??= this.o.cmdline === false || later ? '' : (readCmdline(this.root, pid) ?? ''));
    // prescreen and select are refused with statusLater: status is read whenever they are set.
    if (this.o.prescreen && !this.o.prescreen({ pid, status: status!, cmdline: cmd() })) return null;
    const window = baselineOnly ? 0 : windowSeconds;
    if (this.o.threadsLater === true && p.threadsOnly !== true) {
      const sample = this.withMemory(c, k, { nowMs, status, cmdline: cmd(), window, threads: null });
      if (sample !== null) k.later = { c, baselineOnly };
      return sample;
    }
    const t0 = prior?.threads ?? NO_THREADS;
    const t1 = this.threadsOf(c, k, baselineOnly);
    if (t1 === null) return this.gone();
    if (p.threadsOnly) return null;
    if (
      this.o.select &&
      !this.o.select({
        pid,
        status: status!,
        cmdline: cmd(),
        cpuSeconds: cpuSecondsSince(t0, t1),
        windowSeconds: window,
      })
    )
      return null;
    return this.withMemory(c, k, { nowMs, status, cmdline: cmd(), window, threads: { t0, t1 } });
  }

  /** Stage 4 and the sample; `threads` null when stage 3 is left to withThreads (its CPU nodes empty). */
  private withMemory(
    c: Candidate,
    k: Known,
    o: {
      nowMs: number;
      status: ProcStatus | null;
      cmdline: string;
      window: number;
      threads: { t0: ReadonlyMap<number, ThreadTicks>; t1: ReadonlyMap<number, ThreadTicks> } | null;
    },
  ): ProcessSample | null {
    const { status, threads } = o;
    const memory = this.memory(c, k, o.nowMs, status);
    if (memory === 'no-memory') {
      this.tally.noMemory++; // not gone: left out this pass, read again at the next
      return null;
    }
    if (memory === null) return this.gone();
    if (memory.kind === 'no-permission') this.tally.permission++;
    return {
      pid: c.pid,
      comm: status?.name ?? '',
      memory,
      cmdline: o.cmdline,
      threads: status?.threads ?? c.threads,
      cpusAllowed: status?.cpusAllowed ?? null,
      memsAllowed: status?.memsAllowed ?? null,
      cpuNodes: threads === null ? {} : cpuSecondsByNode(threads.t0, threads.t1, { cpuNode: this.cpuNode }),
      lastNodes: threads === null ? [] : this.lastNodesOf(threads.t1),
      windowSeconds: o.window,
      ...(this.o.threadUse && threads !== null ? { threadUse: threadUseOf(threads.t0, threads.t1, this.cpuNode) } : {}),
    };
  }

  /** Nodes of the CPUs its threads last ran on. */
  private lastNodesOf(t1: ReadonlyMap<number, ThreadTicks>): number[] {
    return nodesOf(
      [...t1.values()].map((t) => t.processor),
      this.cpuNode,
    );
  }

  /**
   * Stage 3 of a sample of the last pass that left it to this (options.threadsLater): the sample
   * with its CPU nodes, last nodes (and threads' use) read now; null when the process is gone.
   * Its window's start is the pass before's reading of its threads, as at stage 3.
   */
  withThreads(s: ProcessSample): ProcessSample | null {
    const k = this.known.get(s.pid);
    const later = k?.later;
    if (k === undefined || later == null || later.c.pid !== s.pid) return s;
    k.later = null;
    const t1 = this.threadsOf(later.c, k, later.baselineOnly);
    if (t1 === null) return this.gone();
    const t0 = later.c.prior?.threads ?? NO_THREADS;
    return {
      ...s,
      cpuNodes: cpuSecondsByNode(t0, t1, { cpuNode: this.cpuNode }),
      lastNodes: this.lastNodesOf(t1),
      ...(this.o.threadUse ? { threadUse: threadUseOf(t0, t1, this.cpuNode) } : {}),
    };
  }

  /**
   * Stage 2: the process's status (reused from the last pass, or read now); null when it is left
   * to readDetails (options.statusLater); 'drop' when the process is left out (counted).
   */
  private statusOf(c: Candidate, k: Known, residentOnly: boolean): ProcStatus | null | 'drop' {
    const kept = this.o.reuseStatus === true && k.status?.rssPages === c.rssPages ? k.status.status : null;
    let status = c.status ?? kept;
    if (status === null && this.o.statusLater === true) return null;
    if (status === null) {
      const fact = readProcStatusFact(this.root, c.pid);
      if (isRefused(fact)) {
        this.tally.hidden++;
        return 'drop';
      }
      status = fact.value;
      if (status === null) {
        this.gone();
        return 'drop';
      }
    }
    if (this.o.reuseStatus === true) k.status = { rssPages: c.rssPages, status };
    return residentOnly && noResidentMemory(status) ? 'drop' : status;
  }

  /**
   * Stage 3: its threads' ticks and last CPUs now (empty when options.threads is false); null when
   * the process is gone.
   */
  private threadsOf(c: Candidate, k: Known, baselineOnly: boolean): Map<number, ThreadTicks> | null {
    if (this.o.threads === false) return new Map();
    const { prior } = c;
    // No CPU used since the last pass: no thread ran, so none moved; their stat is not read again.
    const still = prior !== null && c.cpuTicks >= 0 && prior.ticks === c.cpuTicks;
    const t1 = still ? prior.threads : readThreadTicks(this.root, c.pid, this.files);
    if (t1 === null) return null;
    k.threads = t1;
    if (baselineOnly) this.baselineCount++;
    return t1;
  }

  private gone(): null {
    this.tally.vanished++;
    return null;
  }

  /**
   * Stage 4; null when the process is gone (or its numa_maps cannot be parsed: warned);
   * 'no-memory' when the kernel could not allocate memory to read it.
   */
  private memory(c: Candidate, k: Known, nowMs: number, status: ProcStatus | null): ProcessMemory | null | 'no-memory' {
    const how = this.o.memory ?? { numaMaps: { policies: true } };
    if (how === 'none') return EMPTY;
    if ('oneNode' in how) {
      const bytes = c.rssPages * this.pageSize() + (status?.hugetlbBytes ?? 0);
      const mem = { hugeBytes: 0, heapBytes: 0, stackBytes: 0, privateBytes: bytes, totalBytes: bytes };
      return { kind: 'ok', nodes: { [String(how.oneNode)]: mem }, totalBytes: bytes, policies: {} };
    }
    const { reuse, ...opts } = how.numaMaps;
    const old = k.maps;
    if (reuse !== undefined && old !== null && nowMs - old.at < reuse.ttlMs) {
      const page = this.pageSize();
      const moved = Math.abs(c.rssPages - old.rssPages) * page;
      if (moved <= Math.max(old.rssPages * page * 0.1, reuse.slackBytes)) return old.memory;
    }
    this.tally.mapped++;
    const r = readNumaMapsText(this.root, c.pid);
    if (!r.ok)
      return r.reason === 'no-permission' ? { kind: 'no-permission' } : r.reason === 'no-memory' ? 'no-memory' : null;
    // A numa_maps that cannot be parsed is a warning; the process is left out like one that exited.
    const memory = parseOrWarn(this.root, numaMapsPath(c.pid), r.text, (t) => memoryFromNumaMaps(t, opts));
    if (memory !== null && reuse !== undefined) k.maps = { rssPages: c.rssPages, at: nowMs, memory };
    return memory;
  }

  /** Closes the files kept open (the sampler is done). */
  close(): void {
    this.files.closeAll();
  }
}

/** An older capture's stand-in for /proc/PID/stat: size and threads from status, CPU ticks unknown. */
function fromStatus(s: ProcStatus, out: StatFields, pageSize: number): void {
  out.cpuTicks = -1;
  out.startTicks = 0;
  out.threads = s.threads;
  out.rssPages = Math.ceil(s.rssBytes / pageSize);
  out.vsizeBytes = s.rssBytes;
  out.faults = -1;
}

/** A sampler with the given filters (stat, top, the agent, serve, snapshot, doctor). */
export function createSampler(root: SysRoot, opts: ProcessSamplerOptions = {}): ProcessSampler {
  return new ProcessSampler(root, opts);
}

export interface SampleOptions {
  /** Length of the CPU sampling window (0: no wait; CPU time is then the whole lifetime). */
  readonly windowMs: number;
  /** Processes to sample; default every process with resident memory. */
  readonly pids?: readonly number[];
  /** Injected for tests; default setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told what the last pass read and could not (doctor: "not checked: N of M unreadable"). */
  readonly counts?: (c: PassCounts) => void;
  /** Samples without status and cmdline (ProcessSamplerOptions.statusLater): readDetails reads them. */
  readonly statusLater?: boolean;
}

/**
 * Samples processes once over a window: a pass that reads their threads (numa_maps not read),
 * the wait, then a pass that reads memory per node.
 */
export async function sampleProcesses(root: SysRoot, opts: SampleOptions): Promise<ProcessSample[]> {
  const { samples, sampler } = await samplePasses(root, opts, false);
  sampler.close();
  return samples;
}

/**
 * sampleProcesses with stage 3 left to `withThreads` (ProcessSamplerOptions.threadsLater): the
 * samples' CPU nodes are read only for those `withThreads` is called on (after the pass, as
 * ranked by policy/locality.ts inRankOrder).
 */
export async function sampleProcessesThreadsLater(
  root: SysRoot,
  opts: SampleOptions,
): Promise<{ samples: ProcessSample[]; withThreads: (s: ProcessSample) => ProcessSample | null }> {
  const { samples, sampler } = await samplePasses(root, opts, true);
  return { samples, withThreads: (s) => sampler.withThreads(s) };
}

async function samplePasses(
  root: SysRoot,
  opts: SampleOptions,
  threadsLater: boolean,
): Promise<{ samples: ProcessSample[]; sampler: ProcessSampler }> {
  const base = {
    ...(opts.pids === undefined ? {} : { pids: opts.pids }),
    ...(opts.statusLater ? { statusLater: true } : {}),
    ...(threadsLater ? { threadsLater: true } : {}),
  };
  const s = createSampler(root, { ...base, memory: { numaMaps: { policies: true } } });
  if (opts.windowMs > 0) {
    // The window's first reading: each process's threads, nothing sampled (no numa_maps read).
    [...s.run({ nowMs: 0, threadsOnly: true })];
    await (opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))))(opts.windowMs);
  }
  const samples = s.sample(Math.max(opts.windowMs, 0));
  opts.counts?.(s.counts);
  return { samples, sampler: s };
}
