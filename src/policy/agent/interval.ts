// How long the agent sleeps before its next pass. As numad does (5 s stretching to 15 s), the
// interval grows while nothing needs doing and falls back at once when something does: on a
// server of settled processes most passes find nothing, and each costs a read of every process.
//   quiet pass  every decision a skip (a process local, cooling down, pinned ...), no baseline
//               taken: the next sleep is one --interval longer, up to --max-interval
//   busy pass   a move (or advice) decided, a move waiting for the budget or for a second window
//               (a copy judged over a short one), or a fresh baseline
//               of a process it may act on: back to --interval
// A process that appears while the interval is stretched is seen at most --max-interval later.
import type { Decision } from './types.js';

export interface IntervalOptions {
  /** --interval: the shortest sleep, and the step it grows by. */
  readonly minMs: number;
  /** --max-interval: the longest (>= minMs; equal: never stretched). */
  readonly maxMs: number;
}

/** True when the pass found nothing to do now or soon. */
export function quietPass(decisions: readonly Decision[], baselines: number): boolean {
  if (baselines > 0) return false;
  return decisions.every((d) => d.kind === 'skip' && d.skip !== 'budget' && d.skip !== 'confirming');
}

/** The sleep after a pass, given the one before it (null: none yet). */
export function nextIntervalMs(previousMs: number | null, quiet: boolean, o: IntervalOptions): number {
  if (!quiet || previousMs === null) return o.minMs;
  return Math.min(o.maxMs, Math.max(o.minMs, previousMs + o.minMs));
}
