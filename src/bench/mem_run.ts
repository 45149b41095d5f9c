// Runs the matrices of a MemPlan: per memory node (column) bind the buffer there and verify it,
// then per CPU node (row) pin the workers and measure idle and loaded latency on one random
// cycle and the four bandwidth kernels; verify the pages again after the column.
import type { BandwidthCell, BenchKernel, KernelResult, LatencyCell, Placement } from '../model/bench.js';
import type * as Native from '../native/index.js';
import { readSmapsMapping } from '../sysfs/proc_smaps.js';
import type { SysRoot } from '../sysfs/root.js';
import { allocateBuffer, bindBuffer, verifyBuffer, type BenchBuffer } from './buffer.js';
import { LINE, writeCycle } from './chase.js';
import type { MemPlan, MemRow } from './mem_plan.js';
import { KernelPool } from './pool.js';
import { BYTES_PER_ARRAY_BYTE, KERNELS, type Slice } from './protocol.js';
import { maxOf, median, minOf } from './stats.js';

export interface MemRunOptions {
  readonly repeats: number;
  readonly seconds: number;
  readonly hugePages: boolean;
  readonly bandwidth: boolean;
  readonly latency: boolean;
  readonly loaded: boolean;
  /** Called after each step: steps done, steps in all, what was just measured. */
  readonly progress?: (done: number, total: number, what: string) => void;
}

export interface MemRunResult {
  readonly bandwidth: BandwidthCell[];
  readonly latency: LatencyCell[];
  readonly loadedLatency: LatencyCell[];
  readonly notes: string[];
}

/** Splits `bytes` from offset 0 of each array into `threads` slices of whole 128-byte blocks. */
export function slices(
  threads: number,
  arrayBytes: number,
  base = { a: 0, b: arrayBytes, c: 2 * arrayBytes },
): Slice[] {
  const per = Math.floor(arrayBytes / threads / 128) * 128;
  return Array.from({ length: threads }, (_, i) => ({
    a: base.a + i * per,
    b: base.b + i * per,
    c: base.c + i * per,
    n: per,
  }));
}

function kernelResult(seconds: number[], bytesPerRep: number): KernelResult {
  const rates = seconds.map((s) => bytesPerRep / s / 1e9);
  return { gbps: { best: maxOf(rates), median: median(rates), min: minOf(rates) }, bytesPerRep, seconds };
}

function hugeShare(root: SysRoot, buf: BenchBuffer): number | null {
  const m = readSmapsMapping(root, 'self', buf.range.addr);
  const huge = m?.kb['AnonHugePages'];
  return m === null || huge === undefined ? null : Math.min(1, (huge * 1024) / buf.range.length);
}

export async function runMem(
  native: typeof Native,
  root: SysRoot,
  plan: MemPlan,
  opts: MemRunOptions,
): Promise<MemRunResult> {
  const buf = allocateBuffer(native, plan.bufferBytes);
  const threads = Math.max(...plan.rows.map((r) => r.cpus.length));
  const pool = await KernelPool.start(threads, buf.memory);
  const perCell =
    (opts.bandwidth ? KERNELS.length : 0) + (opts.latency ? 1 : 0) + (opts.latency && opts.loaded ? 1 : 0);
  const total = plan.cols.length * plan.rows.length * perCell;
  let done = 0;
  const step = (what: string) => opts.progress?.(++done, total, what);
  const out: MemRunResult = { bandwidth: [], latency: [], loadedLatency: [], notes: [] };
  try {
    for (const col of plan.cols) {
      const note = bindBuffer(native, buf, col, { hugePages: opts.hugePages });
      if (note !== null) out.notes.push(note);
      const before = verifyBuffer(native, buf, col);
      const lat = new Map<number, Omit<LatencyCell, 'placement'>>();
      const loaded = new Map<number, Omit<LatencyCell, 'placement'>>();
      const bw: Omit<BandwidthCell, 'placement'>[] = [];
      const pin = (row: MemRow) =>
        pool.pin(Array.from({ length: pool.size }, (_, i) => (i < row.cpus.length ? [row.cpus[i]!] : row.cpus)));
      // Latency first for every row: the bandwidth kernels overwrite the cycle.
      const lines = Math.floor(plan.latencyBytes / LINE);
      if (opts.latency) writeCycle(buf.memory.buffer, 0, lines);
      for (const row of opts.latency ? plan.rows : []) {
        await pin(row);
        const ns = await pool.chase(0, 0, lines, opts.seconds);
        lat.set(row.node, {
          cpuNode: row.node,
          memNode: col,
          cpu: row.cpus[0]!,
          ns: { median: median(ns), min: minOf(ns), max: maxOf(ns) },
          laps: ns.length,
          samples: ns,
        });
        step(`latency node ${row.node} -> node ${col}`);
        if (!opts.loaded) continue;
        const l = await loadedCell(pool, row, col, plan, lines, opts.seconds);
        if (l !== undefined) loaded.set(row.node, l);
        step(`loaded latency node ${row.node} -> node ${col}`);
      }
      for (const row of opts.bandwidth ? plan.rows : []) {
        await pin(row);
        const kernels: Partial<Record<BenchKernel, KernelResult>> = {};
        const parts = slices(row.cpus.length, plan.arrayBytes);
        const bytes = parts.reduce((sum, p) => sum + p.n, 0);
        for (const k of KERNELS) {
          const secs = await pool.reps(k, parts, { repeats: opts.repeats, seconds: opts.seconds, maxRepeats: 1000 });
          kernels[k] = kernelResult(secs, bytes * BYTES_PER_ARRAY_BYTE[k]);
          step(`${k} node ${row.node} -> node ${col}`);
        }
        bw.push({ cpuNode: row.node, memNode: col, cpus: row.cpus, kernels });
      }
      const after = verifyBuffer(native, buf, col);
      const placement: Placement = {
        ...after,
        share: Math.min(before.share, after.share),
        verified: before.share === 1 && after.share === 1,
        hugeShare: hugeShare(root, buf),
      };
      for (const c of lat.values()) out.latency.push({ ...c, placement });
      for (const c of loaded.values()) out.loadedLatency.push({ ...c, placement });
      for (const c of bw) out.bandwidth.push({ ...c, placement });
    }
  } finally {
    await pool.close();
  }
  return out;
}

/** The chase on the row's first CPU while its other CPUs stream reads from [latency, +array). */
async function loadedCell(
  pool: KernelPool,
  row: MemRow,
  col: number,
  plan: MemPlan,
  lines: number,
  seconds: number,
): Promise<Omit<LatencyCell, 'placement'> | undefined> {
  const loaders = row.cpus.length - 1;
  if (loaders === 0) return undefined;
  const parts = slices(loaders, plan.arrayBytes, { a: plan.latencyBytes, b: 0, c: 0 });
  const r = await pool.loaded(0, { start: 0, lines, seconds }, new Map(parts.map((s, i) => [i + 1, s])));
  const ns = r.nsPerLoad;
  return {
    cpuNode: row.node,
    memNode: col,
    cpu: row.cpus[0]!,
    ns: { median: median(ns), min: minOf(ns), max: maxOf(ns) },
    laps: ns.length,
    samples: ns,
    loaders,
    loadGbps: r.gbps,
  };
}
