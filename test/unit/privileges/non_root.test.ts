// The non-root matrix: every command and subcommand run as an unprivileged user (uid/gid 65534,
// no groups, through setpriv) on this machine. Commands that read work (exit 0) and never print
// a stack trace; commands that act refuse before they change or print a change list, name root
// and what it is for, and leave a state directory they could have written untouched; a journal
// they may not read is said to be so. A command with no row here fails the test: add one.
// Runs where the tests run as root (here and in CI); skipped, saying so, elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMANDS } from '../../../src/cli/commands/index.js';
import { REPO_DIR } from '../../helpers/cli.js';
import { NOBODY, runAsNobody, stageCli, type AsUser, type Staged } from '../../helpers/other_user.js';
import { skipUnlessTools } from '../../helpers/tools.js';

type Expect = 'works' | 'refuses' | 'denied' | 'usage';

interface Row {
  readonly args: readonly string[];
  readonly expect: Expect;
  /** works: what stdout must say (a true statement about this machine). */
  readonly out?: RegExp;
  /** What stderr must say (what could not be read, and why). */
  readonly err?: RegExp;
  /** works: the exit statuses that mean it worked (default 0; doctor: 1 is "findings"). */
  readonly codes?: readonly number[];
  /** A daemon: SIGTERM once stdout says this; it must then end (exit 0, or by SIGTERM itself). */
  readonly until?: RegExp;
}

// Root is where the tests run (here and in CI); setpriv is a tool like any other (helpers/tools.ts).
const skip =
  process.getuid?.() === 0 ? skipUnlessTools('setpriv') : 'needs root (the tests run as root here and in CI)';

/**
 * Placeholders: WRITABLE, a state directory the user owns with an empty journal; ROOTONLY, root's 0700 one; HOME,
 * the user's directory; FLEET, a directory with one snapshot; TREE, a copy of a 4-node fixture with
 * processes in which two processes' numa_maps are root's alone (0600), as other users' are; PROCS, a copy of the
 * lab-2node-procs example in which every numa_maps is root's alone.
 */
const MATRIX: Readonly<Record<string, readonly Row[]>> = {
  overview: [{ args: [], expect: 'works', out: /^numakit: this machine: \d+ node/ }],
  topo: [
    { args: ['topo'], expect: 'works', out: /\d+ nodes?, / },
    { args: ['topo', '--json'], expect: 'works', out: /"schemaVersion"/ },
  ],
  snapshot: [
    { args: ['snapshot', 'HOME/snap'], expect: 'works', out: /wrote \d+ files/ },
    {
      args: ['--root', 'TREE', 'snapshot', '--processes', 'HOME/snap-tree'],
      expect: 'works',
      out: /wrote \d+ files/,
      err: /^numakit: note: 2 file\(s\) not readable by uid 65534 were left out: (\/proc\/1302\/numa_maps, \/proc\/1403\/numa_maps|\/proc\/1403\/numa_maps, \/proc\/1302\/numa_maps) \(run as root for a complete snapshot/,
    },
  ],
  examples: [{ args: ['examples'], expect: 'works', out: /spark-2s/ }],
  doctor: [
    { args: ['doctor'], expect: 'works', codes: [0, 1], out: /\d+ critical, \d+ warning/ },
    {
      args: ['--root', 'TREE', 'doctor'],
      expect: 'works',
      codes: [0, 1],
      out: /\[low-locality\] process locality: 1 of 1 process of 256 MiB or more unreadable \(run as root\)/,
    },
    // A check without its data is not checked, never passed: every process's numa_maps is root's.
    {
      args: ['--root', 'PROCS', 'doctor', '-v'],
      expect: 'works',
      codes: [0, 1],
      out: /^NOT CHECKED \(\d+\)\n(?:  .*\n)*  \[low-locality\] process locality: 3 of 3 processes of [\d.]+ MiB or more unreadable \(run as root\)\n(?:  .*\n)*  \[pinned-remote\] pinned processes with remote memory: 3 of 3 processes of [\d.]+ MiB or more unreadable \(run as root\)\n/m,
    },
  ],
  stat: [
    { args: ['stat'], expect: 'works', out: /numa_hit/ },
    { args: ['--root', 'TREE', 'stat', '--procs'], expect: 'works', out: /^1403 .*no permission/m },
    {
      args: ['stat', '-p', '1'],
      expect: 'works',
      codes: [1],
      out: /no permission: cannot read \/proc\/1\/numa_maps \(another user's process: run as root\)/,
      err: /PID 1: numa_maps of other users' processes is readable only by root or their owner \(run numakit as root\)/,
    },
  ],
  top: [{ args: ['top', '--iterations', '1'], expect: 'works', out: /NODE MEMORY USED/ }],
  run: [
    { args: ['run', '--cpunodebind=0', '--', 'true'], expect: 'works' },
    { args: ['run', '--show'], expect: 'works', out: /^policy: / },
    {
      args: ['run', '-L', '64k', '-f', 'HOME/policy-file', '-m', '0', '--touch', '--dump'],
      expect: 'works',
      out: /^0000000000000000-0000000000010000: bind : 0 \n$/,
      err: /^numakit: run: created .*policy-file \(mode 0600\)\n$/,
    },
  ],
  migrate: [
    // init is root's: moving its pages needs CAP_SYS_NICE, refused by the kernel in one line.
    { args: ['migrate', '1', '0', '0'], expect: 'refuses', err: /CAP_SYS_NICE/ },
  ],
  apply: [
    {
      args: ['apply', '--profile', 'database', '--state-dir', 'WRITABLE'],
      expect: 'works',
      out: /^profile database( \(placement .*\))?: \d+ setting/,
    },
    {
      args: ['apply', '--profile', 'database', '--yes', '--state-dir', 'WRITABLE'],
      expect: 'refuses',
      err: /^numakit: apply --yes needs root \(uid 0; this is uid 65534\): it writes kernel knobs/,
    },
  ],
  rollback: [
    {
      args: ['rollback', '--state-dir', 'WRITABLE'],
      expect: 'refuses',
      err: /^numakit: rollback needs root \(uid 0; this is uid 65534\)/,
    },
    { args: ['rollback', '--dry-run', '--state-dir', 'ROOTONLY'], expect: 'denied' },
  ],
  journal: [
    { args: ['journal', '--state-dir', 'ROOTONLY'], expect: 'denied' },
    { args: ['journal', '--state-dir', 'WRITABLE'], expect: 'works', out: /^no change sets in the journal/ },
  ],
  // A plan depends on the machine's memory (this one may be too small for Spark): an example's.
  plan: [{ args: ['--example', 'spark-2s', 'plan', 'spark-standalone'], expect: 'works', out: /numactl/ }],
  serve: [{ args: ['serve', '--listen', '127.0.0.1:0'], expect: 'works', until: /http:\/\/127\.0\.0\.1:\d+\// }],
  fleet: [{ args: ['fleet'], expect: 'usage', err: /^numakit: fleet: expected 'numakit fleet report/ }],
  'fleet report': [{ args: ['fleet', 'report', 'FLEET'], expect: 'works', out: /host/i }],
  bench: [{ args: ['bench'], expect: 'usage', err: /^numakit: bench: give a subcommand/ }],
  'bench mem': [
    {
      args: ['bench', 'mem', '--size', '1M', '--latency-size', '1M', '--seconds', '0.01', '--only', 'bandwidth'],
      expect: 'works',
      out: /Bandwidth, GB\/s/,
    },
  ],
  'bench ab': [
    {
      args: [
        'bench',
        'ab',
        '--runs',
        '3',
        '--settle',
        '0',
        '--save',
        'HOME/ab.json',
        '--variant',
        'a=',
        '--variant',
        'b=--cpunodebind=0',
        '--',
        'true',
      ],
      expect: 'works',
      out: /against a \(ratio of medians/,
    },
    {
      args: [
        'bench',
        'ab',
        '--runs',
        '3',
        '--state-dir',
        'WRITABLE',
        '--variant',
        'a=',
        '--variant',
        't=tuned:database',
        '--',
        'true',
      ],
      expect: 'refuses',
      err: /^numakit: bench ab: variant 't' needs root/,
    },
  ],
  // (after bench ab, which saved HOME/ab.json)
  'bench compare': [
    {
      args: ['bench', 'compare', 'HOME/ab.json', 'HOME/ab.json'],
      expect: 'works',
      out: /^numakit bench compare \(bench-ab\)/,
    },
  ],
  k8s: [
    { args: ['k8s'], expect: 'usage', err: /^numakit: k8s: expected 'numakit k8s nrt' or 'numakit k8s agent-stop'/ },
  ],
  'k8s nrt': [{ args: ['k8s', 'nrt'], expect: 'works', out: /^kind: NodeResourceTopology$/m }],
  'k8s agent-stop': [
    {
      args: ['k8s', 'agent-stop', '--state-dir', 'WRITABLE'],
      expect: 'works',
      out: /no running numakit agent in .*: nothing to stop/,
    },
    { args: ['k8s', 'agent-stop', '--state-dir', 'ROOTONLY'], expect: 'denied' },
  ],
  agent: [
    {
      args: ['agent', '--state-dir', 'WRITABLE'],
      expect: 'refuses',
      err: /^numakit: agent needs root \(uid 0; this is uid 65534\): CAP_SYS_NICE/,
    },
    {
      args: ['agent', '--advise', '--once', '--interval', '100ms', '--state-dir', 'WRITABLE'],
      expect: 'works',
      out: /numakit agent ready: .*advise only/,
    },
  ],
  'agent restore': [
    {
      args: ['agent', 'restore', '--state-dir', 'WRITABLE'],
      expect: 'refuses',
      err: /^numakit: agent restore needs root \(uid 0; this is uid 65534\): CAP_SYS_NICE/,
    },
    { args: ['agent', 'restore', '--dry-run', '--state-dir', 'WRITABLE'], expect: 'works', out: /^nothing to restore/ },
  ],
  completion: [{ args: ['completion', 'bash'], expect: 'works', out: /complete -F/ }],
  help: [
    { args: ['help'], expect: 'works', out: /^usage: numakit/ },
    { args: ['help', '--man'], expect: 'works', out: /^\.TH NUMAKIT 1/ },
  ],
};

/** Every command and subcommand the CLI has ("agent restore"), plus the overview. */
async function commandNames(): Promise<string[]> {
  const names = ['overview'];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    names.push(name);
    for (const sub of Object.keys((await entry.load()).subcommands ?? {})) names.push(`${name} ${sub}`);
  }
  return names;
}

describe('as an unprivileged user (uid 65534)', {
  skip,
}, () => {
  let cli: Staged;
  let dirs: Record<'WRITABLE' | 'ROOTONLY' | 'HOME' | 'FLEET' | 'TREE' | 'PROCS', string>;
  before(() => {
    cli = stageCli(REPO_DIR);
    chownSync(cli.home, NOBODY, NOBODY);
    const base = join(cli.home, '..');
    dirs = {
      WRITABLE: join(base, 'state-user'),
      ROOTONLY: join(base, 'state-root'),
      HOME: cli.home,
      FLEET: join(base, 'fleet'),
      TREE: join(base, 'tree'),
      PROCS: join(base, 'procs'),
    };
    cpSync(join(REPO_DIR, 'test/fixtures/stat/four-node'), dirs.TREE, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', dirs.TREE]);
    for (const pid of [1302, 1403]) chmodSync(join(dirs.TREE, 'proc', String(pid), 'numa_maps'), 0o600);
    cpSync(join(REPO_DIR, 'examples/lab-2node-procs'), dirs.PROCS, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', dirs.PROCS]);
    for (const pid of readdirSync(join(dirs.PROCS, 'proc')).filter((n) => /^\d+$/.test(n)))
      if (existsSync(join(dirs.PROCS, 'proc', pid, 'numa_maps')))
        chmodSync(join(dirs.PROCS, 'proc', pid, 'numa_maps'), 0o600);
    mkdirSync(join(dirs.WRITABLE, 'journal'), { recursive: true, mode: 0o755 });
    for (const d of [dirs.WRITABLE, join(dirs.WRITABLE, 'journal')]) chownSync(d, NOBODY, NOBODY);
    mkdirSync(join(dirs.ROOTONLY, 'journal'), { recursive: true });
    chmodSync(dirs.ROOTONLY, 0o700);
    mkdirSync(dirs.FLEET, { mode: 0o755 });
    const snap = spawnSync(process.execPath, [cli.bin, 'snapshot', join(dirs.FLEET, 'this-host.tar.gz')], {
      encoding: 'utf8',
    });
    assert.equal(snap.status, 0, snap.stderr);
    chmodSync(join(dirs.FLEET, 'this-host.tar.gz'), 0o644);
  });
  after(() => cli?.remove());

  it('every command and subcommand has a row', async () => {
    const missing = (await commandNames()).filter((n) => MATRIX[n] === undefined);
    assert.deepEqual(missing, [], `no row in test/unit/privileges/non_root.test.ts for: ${missing.join(', ')}`);
  });

  for (const [name, rows] of Object.entries(MATRIX)) {
    it(name, async () => {
      for (const row of rows) {
        const args = row.args.map((a) =>
          a.replace(/^(WRITABLE|ROOTONLY|HOME|FLEET|TREE|PROCS)/, (k) => dirs[k as keyof typeof dirs]),
        );
        const r = await runAsNobody(cli.bin, args, {
          cwd: cli.home,
          timeoutMs: 30_000,
          ...(row.until ? { untilOut: row.until } : {}),
        });
        check(row, r, `numakit ${args.join(' ')}`);
      }
    });
  }

  function check(row: Row, r: AsUser, what: string): void {
    const all = `${r.out}\n${r.err}`;
    assert.doesNotMatch(
      all,
      /^numakit: internal error|^\s+at .*:\d+:\d+\)?$/m,
      `${what}: no internal error, no stack trace\n${all}`,
    );
    if (row.err) assert.match(r.err, row.err, `${what}: stderr`);
    switch (row.expect) {
      case 'works':
        if (!(row.until !== undefined && r.signal === 'SIGTERM'))
          assert.ok(
            (row.codes ?? [0]).includes(r.code ?? -1),
            `${what} exits ${(row.codes ?? [0]).join(' or ')}, not ${r.code} (signal ${r.signal})\n${all}`,
          );
        if (row.out) assert.match(r.out, row.out, `${what}: stdout`);
        return;
      case 'refuses':
        assert.equal(r.code, 1, `${what} refuses with exit 1\n${all}`);
        assert.match(r.err, /; nothing was changed\n$/, what);
        assert.equal(r.err.trim().split('\n').length, 1, `${what}: one line\n${r.err}`);
        assert.equal(r.out, '', `${what}: prints no change list before refusing`);
        assert.deepEqual(
          [readdirSync(dirs.WRITABLE), readdirSync(join(dirs.WRITABLE, 'journal'))],
          [['journal'], []],
          `${what}: the state directory it could have written is untouched`,
        );
        return;
      case 'usage':
        assert.equal(r.code, 2, `${what}\n${all}`);
        assert.equal(r.err.trim().split('\n').length, 1, `${what}: one line\n${r.err}`);
        return;
      case 'denied':
        assert.equal(r.code, 1, `${what}\n${all}`);
        assert.match(
          r.err,
          /^numakit: cannot read the journal .*: permission denied for uid 65534 \(EACCES\); it is root's: run as root, or give --state-dir DIR\n$/,
          what,
        );
        assert.equal(r.out, '', `${what}: no "no change sets"`);
    }
  }
});
