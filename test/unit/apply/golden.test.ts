// `numakit apply --profile P` (dry run) on every example machine, and the --persist files on
// spark-2s, against test/golden/apply/. UPDATE_GOLDEN=1 rewrites them; review the diff like code.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { Context } from '../../../src/cli/context.js';
import type { CommandModule } from '../../../src/cli/options.js';
import { describeError } from '../../../src/cli/main.js';
import { parseCommandArgs, resolveSubcommand } from '../../../src/cli/parse_options.js';
import { CLASSES } from '../../../src/policy/knowledge/types.js';
import { openRoot, REAL_ROOT } from '../../../src/sysfs/root.js';
import { assertGolden } from '../../helpers/cli.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLES = readdirSync(join(REPO, 'examples'))
  .filter((n) => existsSync(join(REPO, 'examples', n, 'manifest.json')))
  .sort();

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  apply: async () => (await import('../../../src/cli/commands/apply.js')).default,
  rollback: async () => (await import('../../../src/cli/commands/rollback.js')).default,
  journal: async () => (await import('../../../src/cli/commands/journal.js')).default,
  agent: async () => (await import('../../../src/cli/commands/agent.js')).default,
};

/** Runs a command in-process as main.ts would: `[--example NAME] CMD ARGS`, errors as one stderr line. */
async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const example = argv[0] === '--example' ? argv[1]! : undefined;
  const [name, ...args] = example === undefined ? argv : argv.slice(2);
  const root = example === undefined ? REAL_ROOT : openRoot(join(REPO, 'examples', example), `example ${example}`);
  const ctx: Context = {
    root,
    rootGiven: example !== undefined,
    out: (t) => void (out += t),
    err: (t) => void (out += `[stderr] ${t}`),
    color: false,
    isTTY: false,
  };
  try {
    const { cmd, args: rest, name: full } = resolveSubcommand(await COMMANDS[name!]!(), args, name!);
    return { code: await cmd.run(parseCommandArgs(cmd, rest, full), ctx), out };
  } catch (e) {
    const d = describeError(e);
    return { code: d.code, out: `${out}[stderr] numakit: ${d.message}\n` };
  }
}

const golden = (name: string, got: string): void => assertGolden(`apply/${name}`, got);

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? filesUnder(join(dir, n)) : [join(dir, n)]))
    .sort();
}

for (const example of EXAMPLES) {
  test(`golden: apply dry run of every profile on example ${example}`, async () => {
    const parts: string[] = [];
    for (const p of CLASSES) {
      const r = await cli(['--example', example, 'apply', '--profile', p]);
      assert.equal(r.code, 0, r.out);
      parts.push(`$ numakit --example ${example} apply --profile ${p}\n${r.out}`);
    }
    golden(`${example}.txt`, parts.join('\n'));
  });
}

test('golden: --persist DIR files of every profile on spark-2s (DIR outside /etc is written without --yes)', async () => {
  const parts: string[] = [];
  for (const p of CLASSES) {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-persist-'));
    const r = await cli(['--example', 'spark-2s', 'apply', '--profile', p, '--persist', dir]);
    assert.equal(r.code, 0, r.out);
    if (filesUnder(dir).length > 0) assert.match(r.out, /wrote the persistent form for review/);
    parts.push(
      filesUnder(dir)
        .map((f) => `=== ${p}: ${relative(dir, f)}\n${readFileSync(f, 'utf8')}`)
        .join(''),
    );
    rmSync(dir, { recursive: true, force: true });
  }
  golden('persist-spark-2s.txt', parts.join(''));
});

test('--persist /etc without --yes lists the files and writes nothing', async () => {
  const r = await cli(['--example', 'spark-2s', 'apply', '--profile', 'database', '--persist', '/etc']);
  assert.equal(r.code, 0);
  assert.match(r.out, /would write \(add --yes to write into \/etc\):\n  \/etc\/tuned\/numakit-database\/tuned\.conf/);
  assert.equal(existsSync('/etc/tuned/numakit-database'), false);
});

test('apply --yes refuses a snapshot root; bad sources are usage errors (exit 2) in one line', async () => {
  const snap = await cli(['--example', 'spark-2s', 'apply', '--profile', 'database', '--yes']);
  assert.equal(snap.code, 1);
  assert.match(snap.out, /^\[stderr\] numakit: apply --yes: refusing to act on example spark-2s: it is a snapshot/m);
  for (const args of [
    ['apply'],
    ['apply', '--profile', 'x'],
    ['apply', '--profile', 'database', 'f.yaml'],
    ['rollback', 'a', '--all'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}`);
    assert.equal(r.out.trim().split('\n').length, 1, r.out);
  }
  const missing = await cli(['--example', 'spark-2s', 'apply', '/nonexistent/tune.yaml']);
  assert.match(missing.out, /numakit: \/nonexistent\/tune\.yaml: cannot read the change file \(ENOENT\)/);
});

test('journal and rollback --dry-run read the state directory; an empty journal says so, exit 0, and nothing is created', async () => {
  const base = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  const state = join(base, 'state');
  assert.equal((await cli(['journal', '--state-dir', state])).out, 'no change sets in the journal.\n');
  const r = await cli(['rollback', '--dry-run', '--state-dir', state]);
  assert.equal(r.code, 0);
  assert.equal(r.out, 'nothing to roll back: the journal has no change sets\n');
  const restore = await cli(['agent', 'restore', '--dry-run', '--state-dir', state]);
  assert.equal(restore.code, 0);
  assert.equal(restore.out, 'nothing to restore: no agent change set with changes left\n');
  const json = JSON.parse((await cli(['rollback', '--dry-run', '--json', '--state-dir', state])).out) as {
    schemaVersion: number;
    changeSets: unknown[];
  };
  assert.deepEqual([json.schemaVersion, json.changeSets], [1, []]);
  assert.ok(!existsSync(state), 'no state directory was created');
});

test('apply --dry-run is accepted and prints the same dry run as no flag; with --yes it is a one-line usage error', async () => {
  const plain = await cli(['--example', 'spark-2s', 'apply', '--profile', 'database']);
  const dry = await cli(['--example', 'spark-2s', 'apply', '--profile', 'database', '--dry-run']);
  assert.equal(dry.code, 0, dry.out);
  assert.equal(dry.out, plain.out);
  assert.match(dry.out, /->/);
  const both = await cli(['--example', 'spark-2s', 'apply', '--profile', 'database', '--dry-run', '--yes']);
  assert.equal(both.code, 2, both.out);
  assert.equal(
    both.out,
    '[stderr] numakit: apply: --dry-run and --yes cannot be used together (--dry-run is the default; --yes writes)\n',
  );
});
