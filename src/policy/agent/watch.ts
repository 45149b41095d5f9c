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

export function watchVerdict(s: WatchLook, o: WatchBars): WatchVerdict {
  if (s.vsizeBytes === 0) return 'drop';
  if (s.rssBytes < o.minRssBytes || s.cpu === null || s.cpu < o.minCpu) return 'follow';
  const age = o.minAgeMs > 0 ? s.ageSeconds() : null;
  return age !== null && age * 1000 < o.minAgeMs ? 'follow' : 'wake';
}
