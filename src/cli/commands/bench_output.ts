// --save FILE and --report DIR, shared by bench mem and bench ab.
import { mkdirSync } from 'node:fs';
import { type DurableWriteError, writeNamedFile } from '../../actuate/atomic_write.js';
import { join } from 'node:path';
import type { AbResult, MemResult } from '../../model/bench.js';
import { NumakitError } from '../../model/errors.js';
import type { Context } from '../context.js';
import { reasonOf } from '../../runtime/named_file.js';

export type BenchResult = MemResult | AbResult;

function write(path: string, text: string): void {
  try {
    writeNamedFile(path, text);
  } catch (e) {
    throw new NumakitError(`cannot write ${path}: ${(e as DurableWriteError).code ?? (e as Error).message}`);
  }
}

export async function writeOutputs(
  result: BenchResult,
  opts: { save?: string; report?: string },
  ctx: Context,
): Promise<void> {
  if (opts.save !== undefined) write(opts.save, `${JSON.stringify(result, null, 2)}\n`);
  if (opts.report === undefined) return;
  try {
    mkdirSync(opts.report, { recursive: true });
  } catch (e) {
    throw new NumakitError(`cannot create ${opts.report}: ${reasonOf(e)}`);
  }
  const { renderReportMarkdown } = await import('../../render/bench/report_md.js');
  const { renderReportHtml } = await import('../../render/bench/report_html.js');
  write(join(opts.report, 'REPORT.md'), renderReportMarkdown(result));
  write(join(opts.report, 'report.html'), renderReportHtml(result));
  ctx.err(`wrote ${join(opts.report, 'REPORT.md')} and ${join(opts.report, 'report.html')}\n`);
}
