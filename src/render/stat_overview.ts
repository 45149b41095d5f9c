// Text of the overview's stat section. Pure.
import type { NodeStat, ProcessSample } from '../model/stat.js';
import type { RankedProcess } from '../policy/locality.js';
import { formatLocality } from './stat_procs.js';
import { formatBytes } from './units.js';

/** numa_miss as a share of numa_hit + numa_miss, in percent; null without allocations. */
export function missShare(c: Readonly<Record<string, number>>): number | null {
  const hit = c['numa_hit'] ?? 0;
  const miss = c['numa_miss'] ?? 0;
  return hit + miss === 0 ? null : (100 * miss) / (hit + miss);
}

const pct = (v: number) => (v < 0.01 && v > 0 ? '<0.01%' : `${v.toFixed(2)}%`);

export function renderStatOverview(s: NodeStat, worst: readonly RankedProcess<ProcessSample>[]): string {
  let hit = 0;
  let miss = 0;
  for (const c of s.numastat) {
    hit += c['numa_hit'] ?? 0;
    miss += c['numa_miss'] ?? 0;
  }
  const total = { numa_hit: hit, numa_miss: miss };
  const all = missShare(total);
  const perNode = s.nodes
    .map((n, i) => [n, missShare(s.numastat[i]!)] as const)
    .filter((x): x is readonly [number, number] => x[1] !== null);
  const top = perNode.sort((a, b) => b[1] - a[1])[0];
  const lines = [
    all === null
      ? 'stat: no allocations counted yet'
      : `stat: numa_miss ${pct(all)} of allocations since boot${s.nodes.length > 1 && top ? ` (most on node ${top[0]}: ${pct(top[1])})` : ''}`,
  ];
  if (worst.length > 0) {
    lines.push('  most memory away from where it runs:');
    for (const r of worst)
      lines.push(
        `    ${String(r.sample.pid).padStart(7)} ${r.sample.comm.padEnd(15)} ${formatBytes(r.remoteBytes).padStart(9)} remote   locality ${formatLocality(r.locality)}`,
      );
  }
  lines.push('  numakit stat --procs   locality of every process;  numakit top   live view');
  return `${lines.join('\n')}\n`;
}
