// AutoNUMA: kernel.numa_balancing is a bit mask (1: normal balancing; 2: memory tiering, 5.18+)
// and its scan rate. The scan knobs moved to debugfs in 5.13; apply resolves the sysctl names
// to whichever file this kernel has (actuate/targets.ts).
import type { Change } from '../../model/change.js';
import type { KernelFacts } from '../../model/topology.js';
import { scanVerdict } from '../knowledge/scan.js';
import type { Advice, AutonumaMode, ScanWant } from '../knowledge/types.js';
import { sysctl } from './change.js';

export const NUMA_BALANCING = 'kernel.numa_balancing';
const MODE: Record<AutonumaMode, { value: number; accept: number[] }> = {
  off: { value: 0, accept: [] },
  on: { value: 1, accept: [3] },
  tiering: { value: 2, accept: [3] },
};

export function autonumaChanges(a: Advice<AutonumaMode>): Change[] {
  const m = MODE[a.value];
  return [sysctl(NUMA_BALANCING, m.value, `AutoNUMA ${a.value}: ${a.reason}`, m.accept)];
}

/** Whether AutoNUMA runs with this mask value: either bit set. */
export function autonumaRuns(mask: number | null): boolean {
  return mask !== null && (mask & 3) !== 0;
}

export const SCAN_KNOBS = ['delay_ms', 'period_min_ms', 'period_max_ms', 'size_mb'] as const;

/**
 * The four scan knobs. A rate within what the profile wants is kept as it is (each knob's
 * change then reads "already set"); otherwise all four get the profile's values.
 */
export function scanChanges(a: Advice<ScanWant>, k: KernelFacts['numaBalancingScan']): Change[] {
  const w = a.value;
  const now = [k.delayMs.value, k.periodMinMs.value, k.periodMaxMs.value, k.sizeMb.value];
  const keep = now.every((v) => v !== null) && scanVerdict(now[1]!, now[3]!, w) === null;
  const want = [w.delayMs, w.periodMinMs, w.periodMaxMs, w.sizeMb];
  return SCAN_KNOBS.map((knob, i) =>
    sysctl(`kernel.numa_balancing_scan_${knob}`, keep ? now[i]! : want[i]!, `AutoNUMA scan rate: ${a.reason}`),
  );
}
