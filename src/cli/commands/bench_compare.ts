// numakit bench compare A.json B.json: before/after, from two saved results of the same kind.
import { NumakitError } from '../../model/errors.js';
import type { Context } from '../context.js';
import type { Command, ParsedOptions } from '../options.js';

const OPTIONS = {
  json: { type: 'boolean', help: 'the comparison as JSON (schemaVersion 1, docs/bench.md)' },
} as const;

async function run({ values, positionals }: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  const [fa, fb] = positionals as [string, string];
  const { readResult } = await import('../../bench/result_file.js');
  const a = readResult(fa);
  const b = readResult(fb);
  if (a.kind !== b.kind)
    throw new NumakitError(
      `bench compare: ${fa} is a ${a.kind} result and ${fb} a ${b.kind} one; compare two of the same kind`,
    );
  const { compareResults } = await import('../../bench/compare.js');
  const c = compareResults(a, b, { a: fa, b: fb });
  const { renderCompareText } = await import('../../render/bench/compare_text.js');
  ctx.out(values.json ? `${JSON.stringify(c, null, 2)}\n` : renderCompareText(c));
  return 0;
}

const compare: Command<ParsedOptions<typeof OPTIONS>> = {
  summary: 'before/after: two saved bench results (--save) compared figure by figure',
  synopsis: ['[--json] A.json B.json'],
  description: `Compares two results saved with --save (two 'bench mem' or two 'bench ab', e.g. before and
after a tuning change): for each figure the medians of A and B and B's ratio to A with a 95%
bootstrap interval over the reps (mem) or runs (ab), a verdict only when it excludes 1, and
the recorded kernel settings that differ between the two.`,
  options: OPTIONS,
  positionals: { name: 'A.json B.json', min: 2, max: 2, complete: 'file' },
  exit: { 1: 'a file that cannot be read or is not a bench result, or two results of different kinds' },
  run,
};
export default compare;
