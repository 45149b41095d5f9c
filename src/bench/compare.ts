// bench compare: B against A, figure by figure, each with a bootstrap interval over the runs or
// reps both results kept, and the recorded settings that changed between them. Pure.
import type { AbResult, BenchSettings, CompareResult, CompareRow, KernelResult, MemResult } from '../model/bench.js';
import { measureOf } from './ab_summary.js';
import { bootstrapRatio, median } from './stats.js';
import { ratioVerdict } from './verdict.js';

type Oriented = 'higher' | 'lower';

function row(what: string, unit: string, a: readonly number[], b: readonly number[], better: Oriented): CompareRow {
  if (a.length === 0 || b.length === 0)
    return {
      what,
      unit,
      a: a.length === 0 ? null : median(a),
      b: b.length === 0 ? null : median(b),
      ratio: null,
      verdict: 'not in both results',
    };
  const ci = better === 'higher' ? bootstrapRatio(a, b, { seed: 1 }) : bootstrapRatio(b, a, { seed: 1 });
  const ratio = { value: ci.ratio, low: ci.low, high: ci.high };
  const verdict = ratioVerdict(
    ratio,
    { a: a.length, b: b.length },
    { subject: 'B is', up: 'better', down: 'worse', than: '' },
  );
  return { what, unit, a: median(a), b: median(b), ratio, verdict };
}

export function settingsChanged(a: BenchSettings, b: BenchSettings): string[] {
  const keys: (keyof BenchSettings)[] = [
    'kernel',
    'cpuModel',
    'thp',
    'thpDefrag',
    'numaBalancing',
    'zoneReclaimMode',
    'governor',
  ];
  return keys
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${k}: ${String(a[k])} -> ${String(b[k])}`);
}

function memRows(a: MemResult, b: MemResult): CompareRow[] {
  const rows: CompareRow[] = [];
  for (const ca of a.bandwidth) {
    const cb = b.bandwidth.find((x) => x.cpuNode === ca.cpuNode && x.memNode === ca.memNode);
    for (const [k, ka] of Object.entries(ca.kernels)) {
      const kb = cb?.kernels[k as keyof typeof ca.kernels];
      const rates = (r: KernelResult | undefined) =>
        r === undefined ? [] : r.seconds.map((s) => r.bytesPerRep / s / 1e9);
      rows.push(row(`${k} ${ca.cpuNode}->${ca.memNode}`, 'GB/s', rates(ka), rates(kb), 'higher'));
    }
  }
  for (const [name, la, lb] of [
    ['latency', a.latency, b.latency],
    ['loaded latency', a.loadedLatency, b.loadedLatency],
  ] as const) {
    for (const ca of la) {
      const cb = lb.find((x) => x.cpuNode === ca.cpuNode && x.memNode === ca.memNode);
      rows.push(row(`${name} ${ca.cpuNode}->${ca.memNode}`, 'ns', ca.samples, cb?.samples ?? [], 'lower'));
    }
  }
  return rows;
}

function abRows(a: AbResult, b: AbResult): CompareRow[] {
  const metric = a.options.metric;
  const better: Oriented = metric === null ? 'lower' : metric.better;
  const values = (r: AbResult, v: string) =>
    r.runs.filter((x) => x.variant === v && x.ok && !x.warmup).map((x) => measureOf(x, { metric: r.options.metric })!);
  return a.variants.map((v) =>
    row(v.name, metric === null ? 's' : 'metric', values(a, v.name), values(b, v.name), better),
  );
}

export function compareResults(
  a: MemResult | AbResult,
  b: MemResult | AbResult,
  files: { a: string; b: string },
): CompareResult {
  const rows =
    a.kind === 'bench-mem' && b.kind === 'bench-mem'
      ? memRows(a, b)
      : a.kind === 'bench-ab' && b.kind === 'bench-ab'
        ? abRows(a, b)
        : [];
  return {
    schemaVersion: 1,
    kind: 'bench-compare',
    of: a.kind,
    a: { file: files.a, time: a.time },
    b: { file: files.b, time: b.time },
    changed: settingsChanged(a.settings, b.settings),
    rows,
  };
}
