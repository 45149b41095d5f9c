// `numakit run` end to end on this machine (node 0, any number of CPUs): policy and affinity
// reach the command, which replaces numakit (pid, stdio, exit status, signals).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipUnlessTools } from '../../helpers/tools.js';

const bin = fileURLToPath(new URL('../../../src/cli/bin.ts', import.meta.url));

function numakit(args: string[], input?: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', bin, ...args], { encoding: 'utf8', input });
}

test("--physcpubind reaches the command's Cpus_allowed_list", () => {
  const r = numakit(['run', '--physcpubind=0', '--', 'cat', '/proc/self/status']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Cpus_allowed_list:\s+0$/m);
});

test("--cpunodebind=0 binds to node 0's CPUs", () => {
  const r = numakit(['run', '-N', '0', 'cat', '/proc/self/status']);
  assert.equal(r.status, 0, r.stderr);
  const cpulist = spawnSync('cat', ['/sys/devices/system/node/node0/cpulist'], { encoding: 'utf8' }).stdout.trim();
  assert.match(r.stdout, new RegExp(`^Cpus_allowed_list:\\s+${cpulist}$`, 'm'));
});

test("--membind and --interleave show up in the command's numa_maps", () => {
  const bind = numakit(['run', '--membind=0', '--', 'cat', '/proc/self/numa_maps']);
  assert.equal(bind.status, 0, bind.stderr);
  assert.match(bind.stdout, / bind:0 /);
  const inter = numakit(['run', '-iall', 'cat', '/proc/self/numa_maps']);
  assert.match(inter.stdout, / interleave:0 /);
  const local = numakit(['run', '-l', 'cat', '/proc/self/numa_maps']);
  assert.match(local.stdout, / local /);
});

test("the command keeps numakit's pid, stdin, exit status and signals", { skip: skipUnlessTools('sh') }, () => {
  const r = numakit(['run', '-m', '0', '--', 'sh', '-c', 'echo $$; cat; exit 42'], 'from stdin\n');
  assert.equal(r.status, 42, r.stderr);
  const [pid, line] = r.stdout.trim().split('\n');
  assert.equal(Number(pid), r.pid);
  assert.equal(line, 'from stdin');
  assert.equal(numakit(['run', '-l', 'sh', '-c', 'kill -TERM $$']).signal, 'SIGTERM');
});

test("options after the command are the command's", { skip: skipUnlessTools('sh') }, () => {
  const r = numakit(['run', '-l', 'sh', '-c', 'echo "$@"', 'sh', '--help', '-m', '5']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '--help -m 5\n');
});

test('--show reports what the earlier options set', () => {
  const r = numakit(['run', '--membind=0', '--physcpubind=0', '--show']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /^policy: bind\npreferred node: 0\nphyscpubind: 0 \ncpubind: 0 \nnodebind: 0 \nmembind: 0 \npreferred: 0 \n$/,
  );
});

test('errors are one line: 127 for a command that is not found, 1 for a node this machine lacks, 2 for a bad option or a malformed node list', () => {
  const missing = numakit(['run', '--', 'numakit-no-such-command']);
  assert.equal(missing.status, 127);
  assert.equal(missing.stderr, "numakit: run: execution of 'numakit-no-such-command': No such file or directory\n");
  const cases: Array<[string[], string]> = [
    [
      ['run', '--membind=5', 'true'],
      "numakit: run: invalid node specification '5': node 5 does not exist (nodes: 0)\n",
    ],
    [
      ['run', '-m', 'netdev:lo', 'true'],
      'numakit: run: netdev:lo is not attached to any NUMA node (a virtual device?)\n',
    ],
    [['run', '-m', 'netdev:nosuch0', 'true'], 'numakit: run: netdev:nosuch0: no such device in /sys/class/net\n'],
    [
      ['run', '-m', 'ip:127.0.0.1', 'true'],
      'numakit: run: ip:127.0.0.1: routed through lo, which is not attached to any NUMA node (a virtual device?)\n',
    ],
  ];
  for (const [args, stderr] of cases) {
    const r = numakit(args);
    assert.equal(r.status, 1, args.join(' '));
    assert.equal(r.stderr, stderr, args.join(' '));
  }
  const usage: Array<[string[], string]> = [
    [['run', '-m', '0', '-i', 'all', 'true'], 'numakit: run: conflicting policies: -m and -i\n'],
    [['run', '-m', '0'], 'numakit: run: no command given; usage: numakit run [options] [--] COMMAND [ARGS...]\n'],
    [['run', '--bogus', 'true'], "numakit: run: unknown option '--bogus'; see 'numakit run --help'\n"],
    [
      ['run', '--membind=0-x', 'true'],
      "numakit: run: invalid node specification '0-x': '0-x' is not a number or A-B range\n",
    ],
  ];
  for (const [args, stderr] of usage) {
    const r = numakit(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, stderr, args.join(' '));
  }
});

test('126 for a command that exists but cannot be executed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-run-'));
  try {
    const r = numakit(['run', '-l', '--', dir]);
    assert.equal(r.status, 126, r.stderr);
    assert.equal(r.stderr, `numakit: run: execution of '${dir}': Permission denied\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a snapshot root is refused', () => {
  const r = numakit([
    '--root',
    fileURLToPath(new URL('../../../examples/lab-2node', import.meta.url)),
    'run',
    '-m',
    '0',
    'true',
  ]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^numakit: run: refusing to bind to .*: it is a snapshot, not this running system\n$/);
});

test('--help and --hardware print and exit 0', () => {
  assert.match(numakit(['run', '--help']).stdout, /^usage: numakit run/);
  const hw = numakit(['run', '-H']);
  assert.equal(hw.status, 0, hw.stderr);
  assert.match(hw.stdout, /^available: \d+ nodes/);
});

test('--show prints what numactl --show prints for the same options', {
  skip: skipUnlessTools('numactl'),
}, () => {
  for (const opts of [[], ['-m', '0', '-C', '0'], ['-i', 'all'], ['-p', '0'], ['-N', '0']]) {
    const want = spawnSync('numactl', [...opts, '--show'], { encoding: 'utf8' }).stdout;
    const got = numakit(['run', ...opts, '--show']);
    assert.equal(got.stdout, want, opts.join(' '));
  }
});
