// --save FILE and --report DIR, shared by bench mem and bench ab.
import { writeFileSync } from 'node:fs';
import type { AbResult, MemResult } from '../../model/bench.js';
import { NumakitError } from '../../model/errors.js';
import type { Context } from '../context.js';

export type BenchResult = MemResult | AbResult;

function write(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new NumakitError(`cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export async function writeOutputs(result: BenchResult, opts: { save?: string }, _ctx: Context): Promise<void> {
  if (opts.save !== undefined) write(opts.save, `${JSON.stringify(result, null, 2)}\n`);
}
