// The agent's clock: monotonic time, its own CPU time, and a sleep that a stop request cuts
// short. The loop and the mover take it as a dependency; tests pass a fake one.
import type { MoveClock } from './mover.js';

/** Waits `ms` (0: one turn of the event loop, so signal handlers run); resolves early on abort. */
export function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = ms > 0 ? setTimeout(done, ms) : null;
    const immediate = ms > 0 ? null : setImmediate(done);
    function done() {
      if (timer !== null) clearTimeout(timer);
      if (immediate !== null) clearImmediate(immediate);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * The agent's time for intervals, cooldowns, CPU rates and the migration budget: milliseconds
 * since the epoch as of start, then CLOCK_MONOTONIC (performance.now). Date.now follows every
 * step of the wall clock (NTP, an operator's `date -s`): a step back made rates negative and
 * cooldowns last as long as the step.
 */
export const monotonicMs = (): number => performance.timeOrigin + performance.now();

export const REAL_CLOCK: MoveClock = {
  now: () => performance.now(),
  cpuMs: () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  },
  sleep: sleepUnless,
};
