// The agent's watch between passes: which pids to look at, and what one look at a process's stat
// says. Between two passes (seconds apart, up to --max-interval) the kernel's process events
// bring the pids of new processes, --watch (1 s) after the first of a batch; the watch reads
// /proc/PID/stat of each (the newest, a bounded number: a fork storm costs a bounded amount a
// look) and, every --watch, of the young processes it still follows (small when it saw them:
// one that allocates its memory after it starts is large a second later, busy a second later,
// old enough a few seconds later). When events were lost it lists /proc (processes only) and
// looks at those the last listing did not hold. A process it sees at --min-rss, busy (--min-cpu)
// and older than --min-age wakes the agent: a pass runs at once. Each wake costs two passes (a
// baseline, then the 1 s window), so it is kept for processes a pass would act on: a build's
// many short compiler runs never wake it. Pure.

/** New pids looked at in one tick, at most (the newest). */
export const WATCH_NEW_MAX = 64;
/** Ticks a new process is followed past --min-age (read again each tick) before it is left to the passes. */
export const WATCH_FOLLOW_EXTRA = 5;
/** Young processes followed at most (the rest are left to the passes). */
export const WATCH_YOUNG_MAX = 64;
/**
 * Ticks the CPU affinity of a process the watch woke the agent for is followed when the pass
 * found it bound by its user (pinned-cpus): a program started under taskset or numactl often
 * drops that binding once it has set itself up (allocated its memory where it was bound). A
 * change wakes the agent; after these, the passes find it (up to --max-interval later).
 */
export const WATCH_PINNED_TICKS = 15;

/** Ticks a new process is followed: until it is --min-age old, and a few more. */
export function followTicks(o: { minAgeMs: number; watchMs: number }): number {
  return Math.ceil(o.minAgeMs / Math.max(1, o.watchMs)) + WATCH_FOLLOW_EXTRA;
}

/** The processes listed now that the last listing did not hold, newest (highest pid) first, at most `max`. */
export function newPids(listed: readonly number[], before: ReadonlySet<number>, max: number): number[] {
  const out: number[] = [];
  for (let i = listed.length - 1; i >= 0 && out.length < max; i--) if (!before.has(listed[i]!)) out.push(listed[i]!);
  return out;
}

/** What one read of a process's stat says: wake the agent, follow it (young and small), or let it be. */
export type WatchVerdict = 'wake' | 'follow' | 'drop';

export interface WatchLook {
  readonly rssBytes: number;
  /** Kernel threads have no address space: vsize 0. */
  readonly vsizeBytes: number;
  /** CPUs it used since the last look; null at its first look. */
  readonly cpu: number | null;
  /** Seconds since it started (asked only of a large, busy one); null when unknown. */
  readonly ageSeconds: () => number | null;
}

export interface WatchBars {
  readonly minRssBytes: number;
  readonly minCpu: number;
  readonly minAgeMs: number;
}

/**
 * A kernel thread (no address space), or a process whose whole address space is under --min-rss
 * (a shell, a `sleep`, a compiler's driver): dropped at its first look, left to the passes (a
 * program reserves its heap as it starts, so one that will be large has the address space a
 * --watch after its fork). Following them would cost a read each --watch of every small process
 * a shell loop starts.
 */
export function watchVerdict(s: WatchLook, o: WatchBars): WatchVerdict {
  if (s.vsizeBytes < Math.max(1, o.minRssBytes)) return 'drop';
  if (s.rssBytes < o.minRssBytes || s.cpu === null || s.cpu < o.minCpu) return 'follow';
  const age = o.minAgeMs > 0 ? s.ageSeconds() : null;
  return age !== null && age * 1000 < o.minAgeMs ? 'follow' : 'wake';
}

/** The longest a batch of process events is collected before the watch looks (while forks keep coming and none counts). */
export const WATCH_COLLECT_MAX_MS = 8000;

/**
 * How long the next batch of process events is collected: --watch after a batch that held a
 * process worth following or a wake (or after a quiet spell: the batch came after a wait longer
 * than the window), twice the last window after one that held only processes dropped at their
 * first look (a shell loop, a build), up to WATCH_COLLECT_MAX_MS: under churn the agent wakes a
 * few times a minute, not twice a second; a large process that starts then waits up to that long.
 */
export function nextCollectMs(lastMs: number, o: { counted: boolean; quiet: boolean; watchMs: number }): number {
  if (o.counted || o.quiet) return o.watchMs;
  return Math.min(Math.max(o.watchMs, WATCH_COLLECT_MAX_MS), lastMs * 2);
}
