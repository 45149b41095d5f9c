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

type Cell<T> = Omit<T, 'placement'>;

/** What every column of one run shares: the buffer, the worker pool and the progress count. */
interface MemRun {
  readonly native: typeof Native;
  readonly root: SysRoot;
  readonly plan: MemPlan;
  readonly opts: MemRunOptions;
  readonly buf: BenchBuffer;
  readonly pool: KernelPool;
  readonly step: (what: string) => void;
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
  const run: MemRun = { native, root, plan, opts, buf, pool, step };
  const out: MemRunResult = { bandwidth: [], latency: [], loadedLatency: [], notes: [] };
  try {
    for (const col of plan.cols) await measureColumn(run, col, out);
  } finally {
    await pool.close();
  }
  return out;
}

/** Binds the buffer to node `col`, measures every row against it, and adds the cells with the column's placement. */
async function measureColumn(run: MemRun, col: number, out: MemRunResult): Promise<void> {
  const { native, buf } = run;
  const note = bindBuffer(native, buf, col, { hugePages: run.opts.hugePages });
  if (note !== null) out.notes.push(note);
  const before = verifyBuffer(native, buf, col);
  // Latency first for every row: the bandwidth kernels overwrite the cycle.
  const { latency, loaded } = await measureLatency(run, col);
  const bandwidth = await measureBandwidth(run, col);
  const after = verifyBuffer(native, buf, col);
  const placement: Placement = {
    ...after,
    share: Math.min(before.share, after.share),
    verified: before.share === 1 && after.share === 1,
    hugeShare: hugeShare(run.root, buf),
  };
  for (const c of latency.values()) out.latency.push({ ...c, placement });
  for (const c of loaded.values()) out.loadedLatency.push({ ...c, placement });
  for (const c of bandwidth) out.bandwidth.push({ ...c, placement });
}

/** Pins the pool's workers to the row's CPUs, one each; workers beyond them get all of them. */
function pinRow(pool: KernelPool, row: MemRow): Promise<number[]> {
  return pool.pin(Array.from({ length: pool.size }, (_, i) => (i < row.cpus.length ? [row.cpus[i]!] : row.cpus)));
}

/** Idle (and, with --loaded, loaded) latency of every row to node `col`, by CPU node. */
async function measureLatency(
  run: MemRun,
  col: number,
): Promise<{ latency: Map<number, Cell<LatencyCell>>; loaded: Map<number, Cell<LatencyCell>> }> {
  const { plan, opts, pool } = run;
  const latency = new Map<number, Cell<LatencyCell>>();
  const loaded = new Map<number, Cell<LatencyCell>>();
  if (!opts.latency) return { latency, loaded };
  const lines = Math.floor(plan.latencyBytes / LINE);
  writeCycle(run.buf.memory.buffer, 0, lines);
  for (const row of plan.rows) {
    await pinRow(pool, row);
    latency.set(row.node, latencyCell(row, col, await pool.chase(0, 0, lines, opts.seconds)));
    run.step(`latency node ${row.node} -> node ${col}`);
    if (!opts.loaded) continue;
    const l = await loadedCell(pool, row, col, plan, lines, opts.seconds);
    if (l !== undefined) loaded.set(row.node, l);
    run.step(`loaded latency node ${row.node} -> node ${col}`);
  }
  return { latency, loaded };
}

/** The four bandwidth kernels of every row to node `col`. */
async function measureBandwidth(run: MemRun, col: number): Promise<Cell<BandwidthCell>[]> {
  const { plan, opts, pool } = run;
  const bw: Cell<BandwidthCell>[] = [];
  for (const row of opts.bandwidth ? plan.rows : []) {
    await pinRow(pool, row);
    const kernels: Partial<Record<BenchKernel, KernelResult>> = {};
    const parts = slices(row.cpus.length, plan.arrayBytes);
    const bytes = parts.reduce((sum, p) => sum + p.n, 0);
    for (const k of KERNELS) {
      const secs = await pool.reps(k, parts, { repeats: opts.repeats, seconds: opts.seconds, maxRepeats: 1000 });
      kernels[k] = kernelResult(secs, bytes * BYTES_PER_ARRAY_BYTE[k]);
      run.step(`${k} node ${row.node} -> node ${col}`);
    }
    bw.push({ cpuNode: row.node, memNode: col, cpus: row.cpus, kernels });
  }
  return bw;
}

/** A latency cell from the chase's nanoseconds per load, measured on the row's first CPU. */
function latencyCell(row: MemRow, col: number, ns: number[]): Cell<LatencyCell> {
  return {
    cpuNode: row.node,
    memNode: col,
    cpu: row.cpus[0]!,
    ns: { median: median(ns), min: minOf(ns), max: maxOf(ns) },
    laps: ns.length,
    samples: ns,
  };
}

/** The chase on the row's first CPU while its other CPUs stream reads from [latency, +array). */
async function loadedCell(
  pool: KernelPool,
  row: MemRow,
  col: number,
  plan: MemPlan,
  lines: number,
  seconds: number,
): Promise<Cell<LatencyCell> | undefined> {
  const loaders = row.cpus.length - 1;
  if (loaders === 0) return undefined;
  const parts = slices(loaders, plan.arrayBytes, { a: plan.latencyBytes, b: 0, c: 0 });
  const r = await pool.loaded(0, { start: 0, lines, seconds }, new Map(parts.map((s, i) => [i + 1, s])));
  return { ...latencyCell(row, col, r.nsPerLoad), loaders, loadGbps: r.gbps };
}
