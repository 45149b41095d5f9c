// numakit bench mem: the node x node bandwidth and latency matrices. The measuring code (koffi,
// the kernel workers) is imported only when it runs.
import { parseSize } from '../values.js';
import { UsageError } from '../../model/errors.js';
import { requireRealRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import type { Command, ParsedOptions } from '../options.js';
import { positiveInt, seconds } from './bench_values.js';
import { stderrProgress } from './bench_progress.js';
import { BENCH_OUTPUT_OPTIONS } from './bench_output_options.js';

/** STREAM's rule: at least this many timed reps per kernel. */
const MIN_REPEATS = 5;
/** What bench mem does unless told: timed reps per kernel, and seconds per kernel and per latency figure. */
const DEFAULT = { repeats: MIN_REPEATS, seconds: 0.5 } as const;

const OPTIONS = {
  nodes: {
    type: 'string',
    value: 'NODES',
    help: 'only these nodes as rows and columns (numactl syntax: 0-1, all, !2 ...)',
  },
  threads: {
    type: 'string',
    value: 'N',
    help: 'threads per CPU node (default: every CPU of the node this process may use)',
  },
  size: { type: 'string', value: 'SIZE', help: 'bytes per array (default 4x the last-level cache, at least 32M)' },
  'latency-size': {
    type: 'string',
    value: 'SIZE',
    help: 'the latency cycle (default 256M, or 4x the last-level cache if larger)',
  },
  seconds: {
    type: 'string',
    value: 'S',
    help: `at least this long per kernel and per latency figure (default ${DEFAULT.seconds})`,
  },
  repeats: {
    type: 'string',
    value: 'N',
    help: `timed reps per kernel, at least ${MIN_REPEATS} (default ${DEFAULT.repeats})`,
  },
  only: {
    type: 'string',
    value: 'WHAT',
    choices: ['bandwidth', 'latency'],
    help: 'bandwidth | latency (default: both)',
  },
  loaded: { type: 'boolean', help: "also loaded latency: the chase while the node's other CPUs stream reads" },
  'huge-pages': { type: 'boolean', help: 'ask for transparent huge pages (MADV_HUGEPAGE); says how much it got' },
  json: { type: 'boolean', help: 'the result as JSON (schemaVersion 1, docs/bench.md)' },
  csv: { type: 'boolean', help: 'one line per figure' },
  ...BENCH_OUTPUT_OPTIONS,
} as const;

type Parsed = ParsedOptions<typeof OPTIONS>;

async function run({ values }: Parsed, ctx: Context): Promise<number> {
  const only = values.only;
  if (values.loaded && only === 'bandwidth')
    throw new UsageError('bench mem: --loaded measures latency; it cannot go with --only bandwidth');
  const threads = values.threads === undefined ? undefined : positiveInt(values.threads, '--threads');
  const repeats = values.repeats === undefined ? DEFAULT.repeats : positiveInt(values.repeats, '--repeats');
  if (repeats < MIN_REPEATS)
    throw new UsageError(`bench mem: --repeats ${repeats}: STREAM's rule is at least ${MIN_REPEATS} timed reps`);
  const args = {
    nodes: values.nodes,
    threads,
    repeats,
    arrayBytes: size(values.size, '--size'),
    latencyBytes: size(values['latency-size'], '--latency-size'),
    seconds: values.seconds === undefined ? DEFAULT.seconds : seconds(values.seconds, '--seconds'),
    hugePages: values['huge-pages'] === true,
    loaded: values.loaded === true,
    bandwidth: only !== 'latency',
    latency: only !== 'bandwidth',
  };
  requireRealRoot(ctx.root, 'bench mem');
  const { benchMem } = await import('../../bench/mem_bench.js');
  const progress = stderrProgress();
  const result = await benchMem(ctx.root, { ...args, progress: progress.update }).finally(progress.done);
  const { renderMemCsv } = await import('../../render/bench/mem_csv.js');
  const { renderMemText } = await import('../../render/bench/mem_text.js');
  ctx.out(
    values.json ? `${JSON.stringify(result, null, 2)}\n` : values.csv ? renderMemCsv(result) : renderMemText(result),
  );
  const { writeOutputs } = await import('./bench_output.js');
  await writeOutputs(result, { save: values.save, report: values.report }, ctx);
  return 0;
}

function size(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  const bytes = parseSize(v, what);
  if (bytes < 2 ** 20) throw new UsageError(`bench mem: ${what} '${v}': at least 1M`);
  return Math.ceil(bytes / 4096) * 4096;
}

const mem: Command<Parsed> = {
  summary: 'node x node memory bandwidth and latency matrices (MLC class), every buffer verified on its node',
  synopsis: ['[OPTIONS]'],
  description: `Memory bandwidth and latency between every CPU node (rows) and memory node (columns;
memory-only nodes are columns only), like Intel MLC's matrices. Worker threads are pinned to
the row's CPUs; the buffer they share is bound to the column's node (mbind MPOL_BIND) and every
page is checked there with move_pages(2): a cell whose pages were not all on its node is marked
'*' with the real share, never silently wrong.

Bandwidth kernels (WebAssembly, bytes counted as STREAM counts them): read, write (fill),
copy (2x), triad a = b + s*c (3x); each array >= 4x the last-level cache (from sysfs), best and
median of >= 5 timed reps after one untimed pass. Latency: one thread chasing a random cycle
with one pointer per 64-byte line, ns per load. A progress line with an ETA goes to stderr
when it is a terminal. Runs as any user.`,
  options: OPTIONS,
  conflicts: [['json', 'csv']],
  exit: { 1: 'a node without enough free memory, no usable node, or a failed system call' },
  run,
};
export default mem;
