// The daemons' heap under churn. What a pass of the agent or a scrape of serve keeps
// until the next (its readings, the maps of its processes, the rendered exposition) outlives a
// young-generation collection or two, is promoted to the old generation and dies there; nothing
// collects the old generation until it reaches V8's allocation limit, tens of MiB above the live
// heap, and V8 keeps those pages committed (RSS). The agent runs without V8's memory reducer
// (runtime/v8_flags.ts), and even with it a pass every few seconds, or serve under scrapers every
// few seconds, never looks idle to V8: the heap and RSS climb by tens of MiB though nothing is
// kept, which reads as a leak (docs/reliability.md, "The daemons' heap under churn", has the
// measurements). So each daemon paces one full collection itself: after a pass or a scrape, once the
// heap outside the young generation has grown more than max(2 MiB, a quarter) past its lowest
// reading since the last collection, and at most once per 30 s. An idle daemon promotes next to
// nothing and never collects.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface HeapPaceOptions {
  /** Growth past the floor that calls for a collection ... */
  readonly growBytes: number;
  /** ... or this share of the floor, when larger (a large machine's live heap is larger). */
  readonly growShare: number;
  /** At most one collection per this long (V8's own collections cover a faster rate). */
  readonly minGapMs: number;
}

export const HEAP_PACE: HeapPaceOptions = { growBytes: 2 * 2 ** 20, growShare: 0.25, minGapMs: 30_000 };

/** Whether to collect now: `floor` is the lowest reading since the last collection (at `lastMs`). Pure. */
export function shouldCollect(
  s: { readonly floor: number; readonly lastMs: number | null },
  used: number,
  nowMs: number,
  o: HeapPaceOptions = HEAP_PACE,
): boolean {
  if (s.lastMs !== null && nowMs - s.lastMs < o.minGapMs) return false;
  return used - s.floor > Math.max(o.growBytes, s.floor * o.growShare);
}

/** Bytes used outside the young generation (what a scavenge cannot free). */
export function oldBytesUsed(): number {
  let n = 0;
  for (const s of getHeapSpaceStatistics())
    if (s.space_name !== 'new_space' && s.space_name !== 'new_large_object_space') n += s.space_used_size;
  return n;
}

export class HeapPacer {
  private floor = Infinity;
  private lastMs: number | null = null;
  /** Collections it asked for. */
  collections = 0;

  constructor(
    private readonly gc: () => void,
    private readonly used: () => number = oldBytesUsed,
    private readonly o: HeapPaceOptions = HEAP_PACE,
  ) {}

  /** After a pass at `nowMs`: true when it collected. */
  afterPass(nowMs: number): boolean {
    const used = this.used();
    this.floor = Math.min(this.floor, used);
    if (!shouldCollect({ floor: this.floor, lastMs: this.lastMs }, used, nowMs, this.o)) return false;
    this.gc();
    this.floor = this.used();
    this.lastMs = nowMs;
    this.collections++;
    return true;
  }
}

/**
 * V8's full collection, as `gc()` under --expose-gc: the flag is set for one new context, the
 * function taken from it, and the flag cleared again (no other context gets a global gc). Throws
 * when this runtime does not give it.
 */
export function v8FullGc(): () => void {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('typeof gc === "function" ? gc : null') as (() => void) | null;
    if (gc === null) throw new Error('V8 gave no gc function under --expose-gc');
    return gc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * The pacer a daemon uses (`who`: "agent", "serve"); a runtime that cannot give a full
 * collection is said once on `err`, and the daemon goes on without one.
 */
export function daemonHeapPacer(who: string, err: (text: string) => void): HeapPacer | null {
  try {
    return new HeapPacer(v8FullGc());
  } catch (e) {
    err(
      `numakit: warning: ${who}: cannot pace garbage collection (${(e as Error).message}); the heap grows until V8 collects it\n`,
    );
    if (process.env.NUMAKIT_DEBUG) err(`${(e as Error).stack}\n`);
    return null;
  }
}
