// Is an AutoNUMA scan rate what a profile wants? Shared by doctor's autonuma-scan rule and
// apply's scan changes, so a rate one accepts the other leaves alone.
import type { ScanWant } from './types.js';

export interface ScanVerdict {
  readonly kind: 'aggressive' | 'lazy';
  readonly what: string;
}

/** null when scan_period_min_ms and scan_size_mb are within what the profile wants. */
export function scanVerdict(periodMinMs: number, sizeMb: number, w: ScanWant): ScanVerdict | null {
  if (periodMinMs < w.minPeriodFloorMs || sizeMb < w.sizeFloorMb) {
    return {
      kind: 'aggressive',
      what: `scan_period_min_ms ${periodMinMs} (floor ${w.minPeriodFloorMs}), scan_size_mb ${sizeMb} (floor ${w.sizeFloorMb})`,
    };
  }
  if (periodMinMs > w.minPeriodCeilingMs)
    return { kind: 'lazy', what: `scan_period_min_ms ${periodMinMs} (ceiling ${w.minPeriodCeilingMs})` };
  return null;
}
