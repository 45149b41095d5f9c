// `numakit bench mem --csv`: one line per figure. Pure.
import type { MemResult } from '../../model/bench.js';

export const MEM_CSV_HEADER =
  'matrix,kernel,cpu_node,mem_node,value,unit,median,min,max,threads,placement_share,verified';

export function renderMemCsv(r: MemResult): string {
  const lines = [MEM_CSV_HEADER];
  for (const c of r.bandwidth) {
    for (const [k, v] of Object.entries(c.kernels)) {
      const g = v!.gbps;
      lines.push(
        [
          'bandwidth',
          k,
          c.cpuNode,
          c.memNode,
          g.best.toFixed(3),
          'GB/s',
          g.median.toFixed(3),
          g.min.toFixed(3),
          g.best.toFixed(3),
          c.cpus.length,
          c.placement.share.toFixed(4),
          c.placement.verified,
        ].join(','),
      );
    }
  }
  for (const [name, cells] of [
    ['latency', r.latency],
    ['loaded_latency', r.loadedLatency],
  ] as const) {
    for (const c of cells) {
      lines.push(
        [
          name,
          'chase',
          c.cpuNode,
          c.memNode,
          c.ns.median.toFixed(2),
          'ns',
          c.ns.median.toFixed(2),
          c.ns.min.toFixed(2),
          c.ns.max.toFixed(2),
          1 + (c.loaders ?? 0),
          c.placement.share.toFixed(4),
          c.placement.verified,
        ].join(','),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
