// Is an AutoNUMA scan rate what a profile wants? Shared by doctor's autonuma-scan rule and
// apply's scan changes, so a rate one accepts the other leaves alone.
import type { ScanWant } from './types.js';

export interface ScanVerdict {
  readonly kind: 'aggressive' | 'lazy';
  readonly what: string;
  /** The knobs out of range: the evidence (a knob that meets its floor is none). */
  readonly knobs: readonly ('periodMin' | 'size')[];
}

/** null when scan_period_min_ms and scan_size_mb are within what the profile wants. */
export function scanVerdict(periodMinMs: number, sizeMb: number, w: ScanWant): ScanVerdict | null {
  // Only a value below its floor is evidence: one that meets it is not named.
  const low = { periodMin: periodMinMs < w.minPeriodFloorMs, size: sizeMb < w.sizeFloorMb };
  const below = [
    ...(low.periodMin ? [`scan_period_min_ms ${periodMinMs} (floor ${w.minPeriodFloorMs})`] : []),
    ...(low.size ? [`scan_size_mb ${sizeMb} (floor ${w.sizeFloorMb})`] : []),
  ];
  if (below.length > 0) {
    const knobs = (['periodMin', 'size'] as const).filter((k) => low[k]);
    return { kind: 'aggressive', what: below.join(', '), knobs };
  }
  if (periodMinMs > w.minPeriodCeilingMs)
    return {
      kind: 'lazy',
      what: `scan_period_min_ms ${periodMinMs} (ceiling ${w.minPeriodCeilingMs})`,
      knobs: ['periodMin'],
    };
  return null;
}
