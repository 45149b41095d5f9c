// The settings line every bench report starts with. Pure.
import type { BenchSettings } from '../../model/bench.js';

const show = (v: string | number | null) => (v === null ? 'unknown' : String(v));
const load = (l: readonly number[] | null) => (l === null ? '?' : l.map((x) => x.toFixed(2)).join(' '));

export function renderSettings(s: BenchSettings): string {
  const machine = [
    s.cpuModel ?? 'CPU unknown',
    s.hypervisor ? 'virtual machine' : null,
    s.kernel === null ? null : `Linux ${s.kernel}`,
  ]
    .filter((x) => x !== null)
    .join(', ');
  return (
    `${machine}\n` +
    `THP ${show(s.thp)} (defrag ${show(s.thpDefrag)}), numa_balancing ${show(s.numaBalancing)}, zone_reclaim_mode ${show(s.zoneReclaimMode)}, ` +
    `governor ${s.governor ?? 'none (no cpufreq)'}; load average ${load(s.loadAverage.start)} at start, ${load(s.loadAverage.end)} at end\n`
  );
}
