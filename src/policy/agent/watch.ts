// The agent's watch between passes: which pids to look at, and what one look at a process's stat
// says. Between two passes (seconds apart, up to --max-interval) a watch wakes every --watch
// (1 s) and reads /proc/loadavg's last pid: unchanged, no process was created and it reads
// nothing else. Otherwise it reads /proc/PID/stat of the pids allocated since (newest first, a
// bounded number: a fork storm costs a fixed amount a tick) and of the young processes it still
// follows (small when it saw them: one that allocates its memory after it starts is large a
// second later). A process it sees at --min-rss or more wakes the agent: a pass runs at once.
// Pure.

/** New pids looked at in one tick, at most (the newest). */
export const WATCH_NEW_MAX = 64;
/** Ticks a young process under --min-rss is followed (read again each tick) before it is left to the passes. */
export const WATCH_YOUNG_TICKS = 5;
/** Young processes followed at most (the rest are left to the passes). */
export const WATCH_YOUNG_MAX = 64;

/**
 * The pids allocated after `prev` up to `last` (the last pid the kernel allocated), newest first,
 * at most `max`. When the counter wrapped (pid_max reached: `last` below `prev`), the newest are
 * those from `last` down.
 */
export function pidsSince(prev: number, last: number, max: number): number[] {
  if (last === prev) return [];
  const low = last > prev ? prev : 0;
  const out: number[] = [];
  for (let pid = last; pid > low && out.length < max; pid--) out.push(pid);
  return out;
}

/** What one read of a process's stat says: wake the agent, follow it (young and small), or let it be. */
export type WatchVerdict = 'wake' | 'follow' | 'drop';

export interface WatchLook {
  readonly rssBytes: number;
  /** Kernel threads have no address space: vsize 0. */
  readonly vsizeBytes: number;
}

export function watchVerdict(s: WatchLook, minRssBytes: number): WatchVerdict {
  if (s.vsizeBytes === 0) return 'drop';
  return s.rssBytes >= minRssBytes ? 'wake' : 'follow';
}
