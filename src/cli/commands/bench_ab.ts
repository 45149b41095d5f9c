// numakit bench ab [OPTIONS] -- COMMAND [ARGS...]: A/B runs of a workload under placements.
import type { AbResult } from '../../model/bench.js';
import { UsageError } from '../../model/errors.js';
import { requireRealRoot } from '../../sysfs/root.js';
import type { Context } from '../context.js';
import type { Command, ParsedOptions } from '../options.js';
import { parseOptions } from '../parse_options.js';
import { positiveInt, seconds } from './bench_values.js';
import { stderrProgress } from './bench_progress.js';
import { selfCommand } from '../self.js';
import { stopOnSignals } from '../stop_signals.js';
import { BENCH_OUTPUT_OPTIONS } from './bench_output_options.js';
import { stateDirOf, stateDirOption } from '../state_dir_option.js';

/** What bench ab does unless told: counted runs per variant, warmup runs, seconds between runs. */
const DEFAULT = { runs: 5, warmup: 0, settleS: 1 } as const;

const OPTIONS = {
  variant: {
    type: 'string',
    multiple: true,
    value: 'NAME=SPEC',
    help: "a way to run the workload; the first is the baseline. SPEC: numactl options\n('--cpunodebind=0 --membind=1'), empty (as it is), agent[:OPTIONS] (with numakit\nagent running) or tuned:PROFILE (an apply profile, rolled back after each run)",
  },
  runs: {
    type: 'string',
    value: 'N',
    help: `counted runs per variant, at least 3 (default ${DEFAULT.runs}); a verdict needs at least 5\nsuccessful runs of each variant (fewer: the interval is printed, "no verdict")`,
  },
  warmup: { type: 'string', value: 'N', help: `uncounted runs per variant first (default ${DEFAULT.warmup})` },
  settle: { type: 'string', value: 'S', help: `pause between runs (default ${DEFAULT.settleS}s)` },
  seed: {
    type: 'string',
    value: 'N',
    help: 'seed of the shuffled order and the bootstrap (default: from the clock; recorded)',
  },
  metric: {
    type: 'string',
    value: 'REGEX',
    help: "compare the workload's own figure: the last match of REGEX's first group in\nits output (default: wall time)",
  },
  'lower-is-better': { type: 'boolean', help: 'the --metric is a time or latency: lower is better' },
  'numa-balancing': {
    type: 'string',
    value: 'MODE',
    choices: ['keep', 'off', 'on'],
    help: 'keep | off | on: kernel.numa_balancing during the runs (journaled, put back)',
  },
  'state-dir': stateDirOption('journal directory for tuned: and --numa-balancing'),
  json: { type: 'boolean', help: 'the result as JSON (schemaVersion 1, docs/bench.md)' },
  ...BENCH_OUTPUT_OPTIONS,
} as const;

type Values = ParsedOptions<typeof OPTIONS>['values'];
interface AbParsed {
  readonly values: Values;
  readonly command: string[];
  readonly help: boolean;
}

/** Options up to '--', the workload after it. */
function parse(args: string[]): AbParsed {
  const dd = args.indexOf('--');
  const own = dd < 0 ? args : args.slice(0, dd);
  const p = parseOptions({ options: OPTIONS, positionals: undefined }, own, 'bench ab');
  return { values: p.values as Values, command: dd < 0 ? [] : args.slice(dd + 1), help: p.help };
}

function metricOf(v: Values): { regex: RegExp; better: 'higher' | 'lower' } | null {
  if (v.metric === undefined) {
    if (v['lower-is-better'])
      throw new UsageError('bench ab: --lower-is-better goes with --metric (wall time is always lower-is-better)');
    return null;
  }
  let regex: RegExp;
  try {
    regex = new RegExp(v.metric);
  } catch (e) {
    throw new UsageError(`bench ab: --metric '${v.metric}': ${(e as Error).message}`);
  }
  if (new RegExp(`${v.metric}|`).exec('')!.length < 2)
    throw new UsageError(`bench ab: --metric '${v.metric}' has no (group) to capture the number`);
  return { regex, better: v['lower-is-better'] ? 'lower' : 'higher' };
}

async function run({ values, command }: AbParsed, ctx: Context): Promise<number> {
  const { parseVariants } = await import('./bench_ab_variants.js');
  const variants = parseVariants(values.variant ?? []);
  if (command.length === 0)
    throw new UsageError(
      "bench ab: no workload; give it after '--': numakit bench ab --variant ... -- COMMAND [ARGS...]",
    );
  const runs = values.runs === undefined ? DEFAULT.runs : positiveInt(values.runs, '--runs');
  if (runs < 3) throw new UsageError(`bench ab: --runs ${runs}: at least 3 (a confidence interval needs a spread)`);
  const args = {
    command,
    variants,
    runs,
    metric: metricOf(values),
    warmup: values.warmup === undefined ? DEFAULT.warmup : positiveInt(values.warmup, '--warmup'),
    settleS: values.settle === undefined ? DEFAULT.settleS : seconds(values.settle, '--settle'),
    seed: values.seed === undefined ? Date.now() % 2 ** 31 : positiveInt(values.seed, '--seed'),
    numaBalancing: (values['numa-balancing'] ?? 'keep') as AbResult['options']['numaBalancing'],
    stateDir: stateDirOf(values),
    self: selfCommand(),
  };
  requireRealRoot(ctx.root, 'bench ab');
  const [{ benchAb }, { profileSource }] = await Promise.all([
    import('../../bench/ab_run.js'),
    import('../profile_source.js'),
  ]);
  const progress = stderrProgress();
  const stop = stopOnSignals();
  let result: AbResult;
  try {
    result = await benchAb(
      ctx.root,
      {
        ...args,
        profileChanges: (sys, name) => profileSource(sys, name, undefined).changes,
        progress: progress.update,
        log: (l) => ctx.err(`${l}\n`),
      },
      stop.abort.signal,
    );
  } finally {
    progress.done();
    stop.off();
  }
  const { renderAbText } = await import('../../render/bench/ab_text.js');
  ctx.out(values.json ? `${JSON.stringify(result, null, 2)}\n` : renderAbText(result));
  const { writeOutputs } = await import('./bench_output.js');
  await writeOutputs(result, { save: values.save, report: values.report }, ctx);
  return result.runs.some((r) => !r.ok) ? 1 : 0;
}

const ab: Command<AbParsed> = {
  summary: 'A/B runs of a workload under placements, with bootstrap confidence intervals',
  synopsis: ['--variant NAME=SPEC --variant NAME=SPEC... [OPTIONS] -- COMMAND [ARGS...]'],
  description: `Runs COMMAND under each variant in shuffled rounds and compares them, like hyperfine
for placements. Per run: wall time, user and system CPU of the whole process tree, faults,
context switches, numastat deltas per node and, with --metric, the workload's own figure.
Per variant: median, min and max; against the first variant, the ratio of medians with a 95%
bootstrap interval, and a verdict only when the interval excludes 1 (printed with as many
digits, up to 6, as it takes to show it does) and each variant has at least 5 successful runs:
the bootstrap of a median of 3 or 4 values picks among those few values, and its interval is
made of extreme pairs rather than the median's spread. Binding variants need
no privilege; tuned: and agent variants and --numa-balancing need root. SIGINT or SIGTERM
stops the workload and puts back every change before exiting (status 130).`,
  options: OPTIONS,
  sections: [
    {
      title: 'example',
      body: `numakit bench ab --runs 7 --variant default= \\
  --variant local='--cpunodebind=0 --membind=0' --variant remote='--cpunodebind=0 --membind=1' \\
  --metric 'events per second:\\s+([0-9.]+)' -- sysbench memory --memory-access-mode=rnd run`,
    },
  ],
  exit: {
    1: 'a run of the workload failed (it is excluded and reported), or a variant cannot be set up',
    130: 'interrupted; everything was put back',
  },
  parse,
  run,
};
export default ab;
