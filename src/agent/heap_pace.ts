// The agent's heap under churn (issue 28). What a pass keeps until the next (its readings, the
// maps of this pass's processes) outlives a young-generation collection or two, is promoted to
// the old generation and dies there; nothing collects the old generation until it reaches V8's
// allocation limit, tens of MiB above the live heap. The agent runs without V8's memory reducer
// (v8_flags.ts), and even with it a pass every few seconds never looks idle to V8. The 30-minute
// soak read that garbage as a leak (heap 12.1 -> 21.0 MiB, RSS with it); heap snapshots of an
// agent under churn found nothing kept (docs/reliability.md, "The agent's heap under churn").
// So the agent paces one full collection itself: after a pass, once the heap outside the young
// generation has grown more than max(2 MiB, a quarter) past its lowest reading since the last
// collection, and at most once per 30 s. An idle agent promotes next to nothing and never collects.
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
