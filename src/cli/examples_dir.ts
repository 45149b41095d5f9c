// Example machine snapshots shipped in the package (examples/NAME/{manifest.json,sys,proc}).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { UsageError } from '../model/errors.js';
import { sea } from '../runtime/is_sea.js';

export interface ExampleManifest {
  readonly name: string;
  readonly description: string;
  readonly synthetic: boolean;
  readonly source: string;
  readonly [key: string]: unknown;
}

/** examples/ next to dist/ or src/ (both are two levels below the package root). */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples', import.meta.url));

let dir: string | undefined;

/** Where the examples are: in the package, or unpacked from the single executable. */
export async function examplesDir(): Promise<string> {
  if (dir !== undefined) return dir;
  dir = sea() === null ? EXAMPLES_DIR : (await import('../runtime/sea_examples.js')).seaExamplesDir();
  return dir;
}

export async function listExamples(): Promise<ExampleManifest[]> {
  const EXAMPLES_DIR = await examplesDir();
  if (!existsSync(EXAMPLES_DIR)) return [];
  return readdirSync(EXAMPLES_DIR)
    .filter((n) => existsSync(join(EXAMPLES_DIR, n, 'manifest.json')))
    .sort()
    .map((n) => ({ ...JSON.parse(readFileSync(join(EXAMPLES_DIR, n, 'manifest.json'), 'utf8')), name: n }));
}

export async function exampleDir(name: string): Promise<string> {
  const dir = join(await examplesDir(), name);
  if (!/^[A-Za-z0-9._-]+$/.test(name) || !existsSync(join(dir, 'manifest.json'))) {
    const known = (await listExamples()).map((e) => e.name).join(', ');
    throw new UsageError(`--example ${name}: no such example (known: ${known || 'none'}); see 'numakit examples'`);
  }
  return dir;
}
