// numakit bench mem: the node x node bandwidth and latency matrices.
import { parseArgs } from 'node:util';
import { parseDuration, parseSize } from '../../agent/values.js';
import { benchMem } from '../../bench/mem_bench.js';
import { UsageError } from '../../model/errors.js';
import { renderMemCsv } from '../../render/bench/mem_csv.js';
import { renderMemText } from '../../render/bench/mem_text.js';
import { requireRealRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import { writeOutputs } from './bench_output.js';
import { stderrProgress } from './bench_progress.js';

export const memUsage = `usage: numakit bench mem [options]

Memory bandwidth and latency between every CPU node (rows) and memory node (columns;
memory-only nodes are columns only), like Intel MLC's matrices. Worker threads are pinned to
the row's CPUs; the buffer they share is bound to the column's node (mbind MPOL_BIND) and
every page is checked there with move_pages(2): a cell whose pages were not all on its node
is marked '*' with the real share, never silently wrong.

Bandwidth kernels (WebAssembly SIMD, bytes counted as STREAM counts them): read, write (fill),
copy (2x), triad a = b + s*c (3x); each array >= 4x the last-level cache (from sysfs), best
and median of >= 5 timed reps after one untimed pass. Latency: one thread chasing a random
cycle with one pointer per 64-byte line, ns per load.

options:
  --nodes NODES        only these nodes (numactl syntax: 0-1, all, !2 ...)
  --threads N          threads per CPU node (default: every CPU of the node we may use)
  --size SIZE          bytes per array (default 4x the last-level cache, at least 32M)
  --latency-size SIZE  latency buffer (default 256M, or 4x the last-level cache if larger)
  --seconds S          at least this long per kernel and per latency figure (default 0.5)
  --repeats N          timed reps per kernel, at least 5 (default 5)
  --only WHAT          bandwidth or latency (default both)
  --loaded             also loaded latency: the chase while the node's other CPUs stream reads
  --huge-pages         ask for transparent huge pages (MADV_HUGEPAGE); says how much it got
  --json               the result as JSON (schemaVersion 1, docs/bench.md)
  --csv                one line per figure
  --save FILE          also write the JSON result to FILE (for bench compare)

A progress line with an ETA goes to stderr when it is a terminal. Runs as any user.
`;

export async function runBenchMem(args: string[], ctx: Context): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      nodes: { type: 'string' }, threads: { type: 'string' }, size: { type: 'string' }, 'latency-size': { type: 'string' },
      seconds: { type: 'string' }, repeats: { type: 'string' }, only: { type: 'string' }, loaded: { type: 'boolean' },
      'huge-pages': { type: 'boolean' }, json: { type: 'boolean' }, csv: { type: 'boolean' }, save: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`bench mem: unexpected argument '${positionals[0]}'`);
  if (values.json && values.csv) throw new UsageError('bench mem: --json and --csv cannot be used together');
  const only = values.only;
  if (only !== undefined && only !== 'bandwidth' && only !== 'latency') throw new UsageError(`bench mem: --only takes bandwidth or latency, not '${only}'`);
  if (values.loaded && only === 'bandwidth') throw new UsageError('bench mem: --loaded measures latency; it cannot go with --only bandwidth');
  const threads = values.threads === undefined ? undefined : positiveInt(values.threads, '--threads');
  const repeats = values.repeats === undefined ? 5 : positiveInt(values.repeats, '--repeats');
  if (repeats < 5) throw new UsageError(`bench mem: --repeats ${repeats}: STREAM's rule is at least 5 timed reps`);
  requireRealRoot(ctx.root, 'bench mem');
  const progress = stderrProgress();
  const result = await benchMem(ctx.root, {
    nodes: values.nodes, threads, repeats,
    arrayBytes: size(values.size, '--size', 1 << 20), latencyBytes: size(values['latency-size'], '--latency-size', 1 << 20),
    seconds: values.seconds === undefined ? 0.5 : seconds(values.seconds, '--seconds'),
    hugePages: values['huge-pages'] === true, loaded: values.loaded === true,
    bandwidth: only !== 'latency', latency: only !== 'bandwidth', progress: progress.update,
  }).finally(progress.done);
  ctx.out(values.json ? `${JSON.stringify(result, null, 2)}\n` : values.csv ? renderMemCsv(result) : renderMemText(result));
  await writeOutputs(result, { save: values.save }, ctx);
  return 0;
}

/** A duration in seconds: 0, 0.5, 2, or with a unit (500ms, 2s, 1m). */
export function seconds(v: string, what: string): number {
  return /^\s*0*(\.0*)?\s*$/.test(v) ? 0 : parseDuration(v, what) / 1000;
}

export function positiveInt(v: string, what: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`bench: ${what} '${v}': expected a whole number >= 1`);
  return n;
}

function size(v: string | undefined, what: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const bytes = parseSize(v, what);
  if (bytes < min) throw new UsageError(`bench mem: ${what} '${v}': at least 1M`);
  return Math.ceil(bytes / 4096) * 4096;
}
