// What every collector gets at a scrape: the root to read, the clock and the scrape's deadline,
// and where to record gaps (facts it could not read). A collector never throws for a bad or
// vanished file: the file costs only its own fact, and the gap is counted by reason so that
// numakit_scrape_gaps shows it (node_exporter: one collector's failure never fails the scrape).
import { SysfsParseError } from '../../model/errors.js';
import type { SysRoot } from '../../sysfs/root.js';

/** Why a fact is missing from this scrape. */
export type GapReason = 'unparseable' | 'vanished' | 'no-permission' | 'no-memory' | 'deadline' | 'error';

export class Gaps {
  private readonly counts = new Map<string, number>();

  add(collector: string, reason: GapReason, n = 1): void {
    const k = `${collector}\0${reason}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + n);
  }

  /** [collector, reason, count] in insertion order. */
  entries(): [string, GapReason, number][] {
    return [...this.counts].map(([k, n]) => {
      const [c, r] = k.split('\0') as [string, GapReason];
      return [c, r, n];
    });
  }

  has(collector: string): boolean {
    return this.entries().some(([c]) => c === collector);
  }
}

export interface CollectContext {
  readonly root: SysRoot;
  /** Milliseconds (monotonic or wall: only differences are used). */
  readonly now: () => number;
  /** now() past this: stop reading and return what is there (the scrape is partial). */
  readonly deadline: number;
  readonly gaps: Gaps;
  /**
   * An error that is not a missing, vanished or unreadable fact (a bug, an unexpected errno): the
   * scrape says it in one line naming the collector and counts it, never drops it.
   */
  readonly failed?: (collector: string, e: unknown) => void;
}

export function pastDeadline(c: CollectContext): boolean {
  return c.now() > c.deadline;
}

/** The gap reason of an error thrown by a reader, or null when it is a bug to let through. */
export function gapReason(e: unknown): GapReason {
  if (e instanceof SysfsParseError) return 'unparseable';
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'no-permission';
  if (code === 'ESRCH' || code === 'ENOENT') return 'vanished';
  return 'error';
}

/**
 * Runs one read; a thrown error becomes a gap of `collector` and null (an unexpected one is also
 * handed to c.failed). Readers turn a file they
 * cannot parse into an absent fact and a warning on the root (docs/reliability.md): each new
 * warning is an 'unparseable' gap of `collector`.
 */
export function guard<T>(c: CollectContext, collector: string, read: () => T): T | null {
  const before = c.root.warnings?.announced ?? 0;
  try {
    const v = read();
    const added = (c.root.warnings?.announced ?? 0) - before;
    if (added > 0) c.gaps.add(collector, 'unparseable', added);
    return v;
  } catch (e) {
    const reason = gapReason(e);
    c.gaps.add(collector, reason);
    if (reason === 'error') c.failed?.(collector, e);
    return null;
  }
}
