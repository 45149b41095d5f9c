// `numakit topo` on every fixture and example tree against golden files (UPDATE_GOLDEN=1
// rewrites them), and the CLI's answers to bad input: one line, never a stack trace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { assertGolden, REPO_DIR, runMain, TEST_DIR } from '../../helpers/cli.js';

const FIXTURES = join(TEST_DIR, 'fixtures/topo');
const trees: [string, string][] = [
  ...readdirSync(FIXTURES)
    .filter((n) => existsSync(join(FIXTURES, n, 'manifest.json')))
    .map((n): [string, string] => [`fixture-${n}`, join(FIXTURES, n)]),
  ...readdirSync(EXAMPLES_DIR)
    .filter((n) => existsSync(join(EXAMPLES_DIR, n, 'manifest.json')))
    .map((n): [string, string] => [`example-${n}`, join(EXAMPLES_DIR, n)]),
];

describe('topo golden files', () => {
  for (const [name, dir] of trees) {
    for (const [suffix, flags] of [
      ['txt', []],
      ['json', ['--json']],
      ['numactl', ['--numactl']],
    ] as const) {
      it(`${name} topo ${flags.join(' ')}`, async () => {
        const r = await runMain(['--root', dir, 'topo', ...flags]);
        assert.equal(r.err, '');
        assert.equal(r.code, 0);
        assertGolden(`topo/${name}.${suffix}`, r.out);
      });
    }
  }
});

/** Copies a fixture into a temp dir and lets the test break one file. */
function brokenCopy(from: string, rel: string, content: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-broken-'));
  cpSync(join(FIXTURES, from), dir, { recursive: true, verbatimSymlinks: true });
  if (content === null) rmSync(join(dir, rel));
  else writeFileSync(join(dir, rel), content);
  return dir;
}

const BIN = join(REPO_DIR, 'src/cli/bin.ts');
function cli(args: string[], opts: { uid?: number } = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', BIN, ...args], { encoding: 'utf8', cwd: REPO_DIR, ...opts });
}

describe('bad input', () => {
  it('--root that does not exist: one line, exit 1', async () => {
    const r = await runMain(['--root', '/nonexistent/numakit', 'topo']);
    assert.equal(r.code, 1);
    assert.equal(r.err, 'numakit: --root /nonexistent/numakit: no such directory\n');
  });
  it('a --root that is not a snapshot is a usage error naming what is missing (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-not-a-root-'));
    try {
      const empty = await runMain(['--root', dir, 'topo']);
      assert.equal(empty.code, 2, empty.out);
      assert.equal(empty.out, '');
      assert.equal(
        empty.err,
        `numakit: --root ${dir}: not a snapshot: it has neither sys/ nor proc/ (point --root at a directory or .tar.gz made by 'numakit snapshot')\n`,
      );
      mkdirSync(join(dir, 'sys/devices/system/clocksource'), { recursive: true });
      mkdirSync(join(dir, 'proc'));
      const half = await runMain(['--root', dir, 'doctor']);
      assert.equal(half.code, 2, half.out);
      assert.match(half.err, /: it has no sys\/devices\/system\/node and no sys\/devices\/system\/cpu /);
      // One of the two is enough: a machine without NUMA has no node directory.
      mkdirSync(join(dir, 'sys/devices/system/cpu'));
      assert.equal((await runMain(['--root', dir, 'topo'])).code, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('a malformed cpulist costs its fact: one warning naming file and line, the command goes on', async () => {
    const dir = brokenCopy('sparse-nodes', 'sys/devices/system/node/node0/cpulist', '0-1,x\n');
    const r = await runMain(['--root', dir, 'topo']);
    assert.equal(r.code, 0);
    assert.equal(
      r.err,
      "numakit: warning: /sys/devices/system/node/node0/cpulist:1: not a CPU/node list: '0-1,x' (ignored)\n",
    );
    assert.match(r.out, /node 2 /);
  });
  it('a malformed distance file is a warning, and --json carries it', async () => {
    const dir = brokenCopy('sparse-nodes', 'sys/devices/system/node/node2/distance', '32 ten\n');
    const r = await runMain(['--root', dir, 'topo', '--json']);
    assert.equal(r.code, 0);
    assert.match(
      r.err,
      /^numakit: warning: \/sys\/devices\/system\/node\/node2\/distance:1: not a distance \(0\.\.255\): '32 ten' \(ignored\)\n$/,
    );
    const warnings = JSON.parse(r.out).warnings as string[];
    assert.ok(warnings.includes(r.err.replace(/^numakit: warning: /, '').trim()), warnings.join('\n'));
  });
  it('unknown option and unknown command are usage errors (exit 2)', async () => {
    assert.deepEqual(await runMain(['topo', '--bogus']).then((r) => [r.code, r.err.split('\n').length]), [2, 2]);
    const r = await runMain(['frobnicate']);
    assert.equal(r.code, 2);
    assert.equal(r.err, "numakit: unknown command 'frobnicate'; see 'numakit --help'\n");
  });
  it('an unknown example lists the known ones (a usage error, like an unknown profile)', async () => {
    const r = await runMain(['--example', 'nope', 'topo']);
    assert.equal(r.code, 2);
    assert.match(r.err, /^numakit: --example nope: no such example \(known: .*spark-2s.*\); see 'numakit examples'\n$/);
  });
  it('an unreadable file as non-root is absent, not a crash', {
    skip: process.getuid?.() !== 0 && 'needs root to switch to nobody',
  }, () => {
    const dir = brokenCopy('sparse-nodes', 'sys/devices/system/node/node0/meminfo', 'Node 0 MemTotal: 1024 kB\n');
    chmodSync(join(dir, 'sys/devices/system/node/node0/meminfo'), 0o000);
    chmodSync(dir, 0o755);
    const r = cli(['--root', dir, 'topo'], { uid: 65534 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /node 0 {2}CPUs 0-1 \(2 cores\); memory unknown \(no meminfo\)/);
    assert.match(r.stdout, /! node 0: no meminfo/);
  });
  it('the real binary prints no stack trace for a parse error, one warning line', () => {
    const dir = brokenCopy('sparse-nodes', 'sys/devices/system/node/possible', 'zero\n');
    const r = cli(['--root', dir, 'topo', '--numactl']);
    assert.equal(r.status, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^numakit: warning: \/sys\/devices\/system\/node\/possible:1: /);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  });
});

describe('numakit with no command', () => {
  it('on a VM without vNUMA: one node shown, not "the same distance everywhere" while its doctor warns', async () => {
    const r = await runMain(['--example', 'vm-flat-32']);
    assert.equal(r.code, 0);
    assert.match(r.out, /This machine shows one NUMA node, but the hardware under it may have more/);
    assert.doesNotMatch(r.out, /same distance/);
    assert.match(r.out, /VM with 32 vCPUs .* no vNUMA/);
    assert.match(r.out, /numakit examples/);
  });
  it('shows each node with its devices on a multi-node example', async () => {
    const r = await runMain(['--example', 'spark-2s']);
    assert.match(r.out, /node 0: CPUs 0-15,32-47, 96 GiB \(88\.5 GiB free\); net ens1f0, nvme nvme0/);
    assert.doesNotMatch(r.out, /one NUMA node/);
  });
});
