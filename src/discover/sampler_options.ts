import type { ProcStatus } from '../sysfs/proc_status.js';

export interface ThreadTicks {
  readonly ticks: number;
  readonly processor: number;
}

/** Stage 1's bars (the agent's): what one read of /proc/PID/stat rules out. */
export interface ScreenOptions {
  readonly minRssBytes: number;
  readonly pageSize: number;
  /** CPUs under which a process is idle (its threads are not read); 0: never. */
  readonly idleBelow: number;
}

/** What prescreen() sees (stage 2): no CPU time yet. */
export interface PrescreenBrief {
  readonly pid: number;
  readonly status: ProcStatus;
  readonly cmdline: string;
}

/** What select() sees (stage 3), before numa_maps is read. */
export interface SampleBrief extends PrescreenBrief {
  /** CPU seconds of all its threads since the previous pass (the whole lifetime on the first). */
  readonly cpuSeconds: number;
  readonly windowSeconds: number;
}

/** Stage 1 of a process, in the order a pass visits (serve: largest first, and stops). */
export interface StatBrief {
  readonly pid: number;
  /** Resident bytes, plus hugetlbfs pages when asked for (options.hugetlb). */
  readonly bound: number;
}

export interface MemoryReuse {
  /** A reading is reused at most this long ... */
  readonly ttlMs: number;
  /** ... and while RSS moved by at most this (or 10%): a GC cycle is not a move. */
  readonly slackBytes: number;
}

export interface ProcessSamplerOptions {
  /** Only these processes (kept even without resident memory); default every process with resident memory. */
  readonly pids?: readonly number[];
  /** Stage 1 bars; without them only kernel threads and processes without resident memory stop there. */
  readonly screen?: ScreenOptions;
  /**
   * Read a process that stage 1 stopped at its last read (no resident memory, under the size bar,
   * idle) again only at every `every`-th pass, not at every pass; which pass is its pid's turn
   * (pid + pass divisible by `every`), so each pass reads about 1/every of them. A process that
   * grows or gets busy is seen at most `every` passes later; a new pid (one listing of /proc a
   * pass) is read at the first two passes that list it (just started, it may not have grown
   * yet); a process that got past stage 1 is read at every pass. Its idle bar is then judged
   * over the time since its last read. Default 1: every pass.
   */
  readonly recheckEvery?: number;
  /** Add hugetlbfs pages (status HugetlbPages, not in RSS) to the size: status is then read at stage 1. */
  readonly hugetlb?: boolean;
  /**
   * Leave stage 2 (status and cmdline) to readDetails, for the few samples a caller shows: stat
   * --procs ranks every process by its memory and CPU nodes and prints --top of them. A sample
   * then has its thread count from stat and no name, command line or allowed lists. Not with
   * skip, prescreen, select, reuseStatus or hugetlb (they look at status).
   */
  readonly statusLater?: boolean;
  /** Read each process's cmdline (default true; serve labels by name only and never reads it). */
  readonly cmdline?: boolean;
  /**
   * Reuse a process's status from the last pass while its resident pages are unchanged (serve:
   * the K largest are visited every scrape, and it wants only their name and threads from it).
   */
  readonly reuseStatus?: boolean;
  /** Before status and cmdline are read: true drops the process this pass (the agent itself, init, a cooldown). */
  readonly skip?: (pid: number) => boolean;
  /** After status and cmdline: false drops it (its threads are not read). */
  readonly prescreen?: (p: PrescreenBrief) => boolean;
  /** Read the threads (CPU per node); default true. false: cpuNodes and lastNodes are empty. */
  readonly threads?: boolean;
  /**
   * Leave stage 3 (each thread's stat) to ProcessSampler.withThreads, for the samples a caller
   * shows: stat --procs ranks by remote memory, at most a process's memory (numa_maps, read
   * first), so it reads the threads of the processes that can still rank among those it prints
   * (policy/locality.ts inRankOrder), not of every process. A sample then has empty cpuNodes
   * and lastNodes until withThreads. A pass with threadsOnly still reads them (a window's
   * start). Not with select (it looks at the threads' CPU).
   */
  readonly threadsLater?: boolean;
  /** After its threads: false drops it (its numa_maps is not read). */
  readonly select?: (p: SampleBrief) => boolean;
  /** Each kept process's threads' CPU over the window (ProcessSample.threadUse). */
  readonly threadUse?: boolean;
  /**
   * What memory is read: numa_maps (default; anonymous mappings only with anonOnly, bytes per
   * policy with policies), 'none' (an empty reading: the caller has its own, cgroup units), or
   * all of it on one node (a machine with one memory node: nothing can be remote).
   */
  readonly memory?:
    | { readonly numaMaps: { anonOnly?: boolean; policies?: boolean; reuse?: MemoryReuse } }
    | { readonly oneNode: number }
    | 'none';
  /** Bytes of a page (resident pages to bytes); default the screen's, else the root's (discover/page_size.ts). */
  readonly pageSize?: number;
  /**
   * Keep the name of every process whose stat stage 1 reads (stat's comm as status's Name shows
   * it; from status in a capture without stat), small, idle and kernel threads included:
   * ProcessSampler.names. doctor finds services by name in the same pass that samples the large.
   * A set keeps only the processes of those names (doctor's daemons): no name kept a process.
   */
  readonly names?: boolean | ReadonlySet<string>;
  /**
   * One pass, then closed (doctor's and apply's large processes): stage 1 keeps nothing of a
   * process its bars stop (what a next pass would compare with: 10,000 of them on a large
   * machine) nor of those it passes that the pass does not read further (PassOptions
   * largestFirst's stop), so startOf() knows only the processes read past stage 1; a second
   * pass is refused.
   */
  readonly onePass?: boolean;
}

/** What a pass read, and what it could not. */
export interface PassCounts extends Unreadable {
  /** Processes whose /proc/PID/stat it read. */
  readonly scanned: number;
  /** Processes stage 1 stopped at their last read, left to their turn (options.recheckEvery): not read. */
  readonly deferred: number;
  /** Processes whose numa_maps it read (not reused). */
  readonly mapped: number;
  /** Processes left out because the kernel could not allocate memory to read their numa_maps (ENOMEM). */
  readonly noMemory: number;
  /** Processes stage 1 kept (resident, over the size bar, not idle): what a pass could go on to read. */
  readonly kept: number;
}

/** Processes a pass could not read, by why. */
export interface Unreadable {
  /** numa_maps (or another file) refused: another user's process, without CAP_SYS_PTRACE. */
  readonly permission: number;
  /**
   * Listed, but its stat or status refused to this user (/proc mounted with hidepid=noaccess, a
   * security module): nothing of it is known, not even its size. (With hidepid=invisible such
   * processes are not even listed, and cannot be counted.)
   */
  readonly hidden: number;
  /** Listed, then gone before it was read through. */
  readonly vanished: number;
}

export interface PassOptions {
  /** Visit stage 1's survivors largest first (ties by pid), and stop when this says so. */
  readonly largestFirst?: { readonly stop: (next: StatBrief) => boolean };
  /** ms since some origin, for the window (default the sampler's first pass is 0 s long). */
  readonly nowMs: number;
  /** Only these processes this pass (cgroup members). */
  readonly pids?: readonly number[];
  /** Read each process's threads and stop there (a window's first reading: nothing is sampled). */
  readonly threadsOnly?: boolean;
}
