// The error paths of every command (and subcommand) end in the exit status the README's table
// gives, with one line on stderr and no stack trace: a usage error (unknown option, unknown
// example or profile, a --root that is not a snapshot) is 2; a file that cannot be read (an
// archive that is not one, a --root that does not exist, a process whose memory is refused)
// is 1.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import { EXIT } from '../../../src/cli/exit_status.js';
import type { Command } from '../../../src/cli/options.js';
import { type Ran, runMain } from '../../helpers/cli.js';
import { withReadFaults } from '../../helpers/read_faults.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-errors-'));
after(() => rmSync(base, { recursive: true, force: true }));
const EMPTY = mkdtempSync(join(base, 'empty-'));
const GARBAGE = join(base, 'garbage.tar.gz');
writeFileSync(GARBAGE, 'not an archive\n');

/** The arguments a command cannot run without, so that its run reaches the root. */
const NEEDS: Readonly<Record<string, readonly string[]>> = {
  snapshot: [join(base, 'out.tar.gz')],
  migrate: ['1', '0', '1'],
  'fleet report': [base],
  'bench compare': [join(base, 'a.json'), join(base, 'b.json')],
  completion: ['bash'],
};

/** Every command line name: `topo`, `agent restore`, `k8s agent-stop` ... */
async function commandLines(): Promise<string[][]> {
  const out: string[][] = [];
  const walk = (prefix: string[], c: Command) => {
    out.push([...prefix, ...(NEEDS[prefix.join(' ')] ?? [])]);
    for (const [name, sub] of Object.entries(c.subcommands ?? {})) walk([...prefix, name], sub);
  };
  for (const [name, entry] of Object.entries(COMMANDS)) walk([name], await entry.load());
  return out;
}

function oneLine(r: Ran, what: string): void {
  assert.equal(r.err.trimEnd().split('\n').length, 1, `${what}: one line on stderr\n${r.err}`);
  assert.doesNotMatch(r.err, /^\s+at .*:\d+:\d+\)?$|internal error/m, `${what}: no stack trace\n${r.err}`);
}

describe('every command: its error paths and their exit statuses', async () => {
  const lines = await commandLines();
  const cases: [string, (cmd: string[]) => string[], number, RegExp][] = [
    [
      'an unknown option',
      (c) => ['--example', 'lab-2node', ...c, '--no-such-option'],
      EXIT.usage,
      /unknown option '--no-such-option'/,
    ],
    ['--example nosuch', (c) => ['--example', 'nosuch', ...c], EXIT.usage, /--example nosuch: no such example/],
    ['--root of a directory that is not a snapshot', (c) => ['--root', EMPTY, ...c], EXIT.usage, /: not a snapshot: /],
    ['--root of a file that is not an archive', (c) => ['--root', GARBAGE, ...c], EXIT.failure, /: not a gzip file/],
    ['--root that does not exist', (c) => ['--root', join(base, 'nosuch'), ...c], EXIT.failure, /: no such directory/],
  ];
  for (const [what, argv, code, message] of cases) {
    test(`${what}: exit ${code} from every command`, async () => {
      const wrong: string[] = [];
      for (const c of lines) {
        const args = argv(c);
        const r = await runMain(args);
        const lines = r.err.trimEnd().split('\n').length;
        if (r.code !== code || !message.test(r.err) || lines !== 1 || /^\s+at .*:\d+:\d+\)?$/m.test(r.err))
          wrong.push(`numakit ${args.join(' ')}: exit ${r.code}: ${r.err.trimEnd()}`);
      }
      assert.deepEqual(wrong, []);
    });
  }

  test('--profile nosuch is a usage error wherever a profile is taken', async () => {
    for (const args of [
      ['--example', 'spark-2s', 'doctor', '--profile', 'nosuch'],
      ['--example', 'spark-2s', 'apply', '--profile', 'nosuch'],
    ]) {
      const r = await runMain(args);
      assert.equal(r.code, EXIT.usage, `numakit ${args.join(' ')}`);
      oneLine(r, args.join(' '));
    }
  });
});

describe('stat -p: a process whose memory cannot be read', () => {
  test('shown as "no permission", and the exit status says not all was read (1)', async () => {
    const r = await withReadFaults(
      (p) => (p.endsWith('/proc/147/numa_maps') ? 'EACCES' : undefined),
      () => runMain(['--example', 'lab-2node-procs', 'stat', '-p', '147']),
    );
    assert.match(r.out, /no permission/);
    assert.equal(r.code, EXIT.failure, r.err);
  });
  test('--json too', async () => {
    const r = await withReadFaults(
      (p) => (p.endsWith('/proc/147/numa_maps') ? 'EACCES' : undefined),
      () => runMain(['--example', 'lab-2node-procs', 'stat', '-p', '147', '--json']),
    );
    assert.equal(r.code, EXIT.failure, r.err);
  });
  test('a readable process: exit 0', async () => {
    const r = await runMain(['--example', 'lab-2node-procs', 'stat', '-p', '147']);
    assert.equal(r.code, EXIT.ok, r.err);
    assert.doesNotMatch(r.out, /no permission/);
  });
});
