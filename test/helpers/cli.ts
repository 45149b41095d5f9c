// Shared test helpers: run a command in-process on a root and capture what it prints, and
// compare text with golden files under test/golden (UPDATE_GOLDEN=1 rewrites them).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS, OVERVIEW } from '../../src/cli/commands/index.js';
import type { Context } from '../../src/cli/context.js';
import type { CommandModule } from '../../src/cli/options.js';
import { describeError, main } from '../../src/cli/main.js';
import { formatWarning, Warnings } from '../../src/model/warnings.js';
import { parseCommandArgs } from '../../src/cli/parse_options.js';
import type { SysRoot } from '../../src/sysfs/root.js';

export const TEST_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_DIR = join(TEST_DIR, '..');
export const GOLDEN_DIR = join(TEST_DIR, 'golden');

export interface Ran {
  code: number;
  out: string;
  err: string;
}

export interface RunOptions {
  /** Environment variables set while the command runs. */
  readonly env?: Record<string, string>;
  /** Run as on a colour terminal (isTTY and color). */
  readonly color?: boolean;
}

/** The command's name in the table ('' for the overview), for its messages. */
async function nameOf(cmd: CommandModule): Promise<string> {
  for (const [name, entry] of Object.entries(COMMANDS)) if ((await entry.load()) === cmd) return name;
  if ((await OVERVIEW.load()) === cmd) return '';
  throw new Error('runCommand: a command that is not in the command table');
}

/**
 * Runs a command as main() does: its arguments parsed by its declaration, then run; a thrown
 * error becomes the exit code and one stderr line, as bin.ts does.
 */
export async function runCommand(
  cmd: CommandModule,
  root: SysRoot,
  args: string[],
  opts: RunOptions = {},
): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const color = opts.color === true;
  const env = opts.env ?? {};
  // As main() does: each read warning once on stderr.
  const warnings = new Warnings((w) => void err.push(`numakit: warning: ${formatWarning(w)}\n`));
  const ctx: Context = {
    root: { ...root, warnings },
    rootGiven: true,
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    isTTY: color,
    color,
  };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const code = await cmd.run(parseCommandArgs(cmd, args, await nameOf(cmd)), ctx);
    return { code, out: out.join(''), err: err.join('') };
  } catch (e) {
    const d = describeError(e);
    return { code: d.code, out: out.join(''), err: `${err.join('')}numakit: ${d.message}\n` };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Runs main() with full argv (global options included), capturing what it prints. */
export async function runMain(argv: string[]): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(argv, { out: (t) => void out.push(t), err: (t) => void err.push(t), isTTY: false });
    return { code, out: out.join(''), err: err.join('') };
  } catch (e) {
    const d = describeError(e);
    return { code: d.code, out: out.join(''), err: `${err.join('')}numakit: ${d.message}\n` };
  }
}

/** Compares with test/golden/REL; UPDATE_GOLDEN=1 writes it instead. */
export function assertGolden(rel: string, actual: string): void {
  const path = join(GOLDEN_DIR, rel);
  if (process.env['UPDATE_GOLDEN'] === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) assert.fail(`missing golden file ${path} (run with UPDATE_GOLDEN=1)`);
  assert.equal(actual, readFileSync(path, 'utf8'), `output differs from ${path}`);
}
