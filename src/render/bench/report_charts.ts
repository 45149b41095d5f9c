// The charts of a bench report, as inline SVG strings. Pure.
import type { AbResult, BenchKernel, MemResult } from '../../model/bench.js';
import { heatmap, intervals, stackedBars, stripBox, type HeatCell } from './svg.js';

const KERNELS: readonly BenchKernel[] = ['read', 'write', 'copy', 'triad'];

export function memCharts(r: MemResult): string[] {
  const rows = r.cpuNodes.map((n) => `CPU node ${n}`);
  const cols = r.memNodes.map((n) => `memory node ${n}`);
  const out: string[] = [];
  for (const k of KERNELS) {
    if (!r.bandwidth.some((c) => c.kernels[k] !== undefined)) continue;
    const cells: HeatCell[][] = r.cpuNodes.map((i) =>
      r.memNodes.map((j) => {
        const c = r.bandwidth.find((x) => x.cpuNode === i && x.memNode === j);
        const v = c?.kernels[k]?.gbps.best ?? null;
        return {
          value: v,
          label: v === null ? '-' : `${v.toFixed(1)} GB/s`,
          marked: c !== undefined && !c.placement.verified,
        };
      }),
    );
    out.push(heatmap(`${k} bandwidth, GB/s (best rep)`, rows, cols, cells));
  }
  for (const [title, list] of [
    ['idle latency, ns per load', r.latency],
    ['loaded latency, ns per load', r.loadedLatency],
  ] as const) {
    if (list.length === 0) continue;
    const cells: HeatCell[][] = r.cpuNodes.map((i) =>
      r.memNodes.map((j) => {
        const c = list.find((x) => x.cpuNode === i && x.memNode === j);
        return {
          value: c?.ns.median ?? null,
          label: c === undefined ? '-' : `${c.ns.median.toFixed(1)} ns`,
          marked: c !== undefined && !c.placement.verified,
        };
      }),
    );
    out.push(heatmap(title, rows, cols, cells, { lowIsGood: true }));
  }
  return out;
}

export function abCharts(r: AbResult): string[] {
  const counted = (v: string) => r.runs.filter((x) => x.variant === v && x.ok && !x.warmup);
  const metric = r.options.metric;
  const groups = r.variants.map((v) => ({
    name: v.name,
    values: counted(v.name).map((x) => (metric === null ? x.wallS : (x.metric ?? 0))),
  }));
  const out = [
    stripBox(
      metric === null ? 'wall time per run (lower is better)' : `the metric per run (${metric.better} is better)`,
      groups,
      metric === null ? 's' : '',
    ),
  ];
  out.push(
    stackedBars(
      "CPU of the workload's process tree (median per run)",
      r.summary.map((s) => ({ name: s.variant, parts: [s.userS ?? 0, s.systemS ?? 0] })),
      ['user', 'system'],
      's',
    ),
  );
  const ratios = r.summary.filter((s) => s.ratio !== null).map((s) => ({ name: s.variant, ...s.ratio! }));
  if (ratios.length > 0)
    out.push(intervals(`against ${r.variants[0]!.name}: ratio of medians, 95% interval (> 1 is better)`, ratios));
  return out;
}
