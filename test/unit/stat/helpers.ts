// Runs `numakit stat` / `numakit top` in-process on a fixture root, capturing output, and
// compares text with golden files (UPDATE_GOLDEN=1 rewrites them).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeError } from '../../../src/cli/main.js';
import type { Command, Context } from '../../../src/cli/context.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(HERE, '../../fixtures/stat');
export const GOLDEN = join(HERE, '../../golden/stat');

export function fixtureRoot(name: string): SysRoot {
  return openRoot(join(FIXTURES, name));
}

export interface Ran {
  code: number;
  out: string;
  err: string;
}

/** Runs a command; a thrown error becomes the exit code and one stderr line, as main() does. */
export async function runCommand(cmd: Command, root: SysRoot, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: Context = { root, rootGiven: true, out: (t) => void out.push(t), err: (t) => void err.push(t), isTTY: false, color: false };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const code = await cmd.run(args, ctx);
    return { code, out: out.join(''), err: err.join('') };
  } catch (e) {
    const d = describeError(e);
    return { code: d.code, out: out.join(''), err: `${err.join('')}numakit: ${d.message}\n` };
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

export async function runStat(fixture: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const stat = (await import('../../../src/cli/commands/stat.js')).default;
  return runCommand(stat, fixtureRoot(fixture), args, env);
}

/** Compares with test/golden/stat/NAME; UPDATE_GOLDEN=1 writes it instead. */
export function assertGolden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env['UPDATE_GOLDEN'] === '1' || !existsSync(path)) {
    if (process.env['UPDATE_GOLDEN'] !== '1') assert.fail(`missing golden file ${path} (run with UPDATE_GOLDEN=1)`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.equal(actual, readFileSync(path, 'utf8'), `output differs from ${path}`);
}
