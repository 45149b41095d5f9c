// Example machine snapshots shipped in the package (examples/NAME/{manifest.json,sys,proc}).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { NumakitError } from '../model/errors.js';

export interface ExampleManifest {
  readonly name: string;
  readonly description: string;
  readonly synthetic: boolean;
  readonly source: string;
  readonly [key: string]: unknown;
}

/** examples/ next to dist/ or src/ (both are two levels below the package root). */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples', import.meta.url));

export function listExamples(): ExampleManifest[] {
  if (!existsSync(EXAMPLES_DIR)) return [];
  return readdirSync(EXAMPLES_DIR)
    .filter((n) => existsSync(join(EXAMPLES_DIR, n, 'manifest.json')))
    .sort()
    .map((n) => ({ ...JSON.parse(readFileSync(join(EXAMPLES_DIR, n, 'manifest.json'), 'utf8')), name: n }));
}

export function exampleDir(name: string): string {
  const dir = join(EXAMPLES_DIR, name);
  if (!/^[A-Za-z0-9._-]+$/.test(name) || !existsSync(join(dir, 'manifest.json'))) {
    const known = listExamples().map((e) => e.name).join(', ');
    throw new NumakitError(`--example ${name}: no such example (known: ${known || 'none'}); see 'numakit examples'`);
  }
  return dir;
}
