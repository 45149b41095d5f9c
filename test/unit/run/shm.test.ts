// numactl's shared memory and file policies in `numakit run`: the argument list read as numactl's
// steps in order, the --dump/--dump-nodes renderers against numactl's own lines, and the command
// on this machine (node 0): a SysV segment and a tmpfs file created, bound, touched and dumped,
// and nothing left behind when a step fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ftok, shmRemove, shmget } from '../../../src/native/index.ts';
import { parseMemsize, parseRunArgs } from '../../../src/cli/commands/run_argv.ts';
import { pageRuns, renderNodeDump, renderPolicyDump, samePolicy } from '../../../src/render/shm_dump.ts';

const bin = fileURLToPath(new URL('../../../src/cli/bin.ts', import.meta.url));
const numakit = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', bin, ...args], { encoding: 'utf8' });

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'numakit-shm-'));
  dirs.push(d);
  return d;
};

describe('run --shm/--file arguments', () => {
  it('attach options before, steps after, in order', () => {
    const r = parseRunArgs([
      '-L',
      '4m',
      '-o',
      '0x2000',
      '-M',
      '0640',
      '-I',
      '3',
      '-u',
      '--shm',
      '/k',
      '-t',
      '-i',
      'all',
      '-T',
      '-d',
      '-D',
    ]);
    assert.deepEqual(r.shm, {
      kind: 'shm',
      path: '/k',
      length: 4 << 20,
      offset: 0x2000,
      mode: 0o640,
      id: 3,
      huge: true,
      steps: [
        { kind: 'strict' },
        { kind: 'policy', memory: { kind: 'interleave', spec: 'all' }, flag: '-i' },
        { kind: 'touch' },
        { kind: 'dump' },
        { kind: 'dump-nodes' },
      ],
    });
    assert.equal(r.memory, undefined);
    assert.deepEqual(r.command, []);
    const f = parseRunArgs(['--file=/dev/shm/x', '--dump']);
    assert.deepEqual(f.shm, {
      kind: 'file',
      path: '/dev/shm/x',
      offset: 0,
      mode: 0o600,
      id: 0,
      huge: false,
      steps: [{ kind: 'dump' }],
    });
  });

  it("sizes as numactl's memsize: decimal or hex bytes, k/m/g/t binary suffixes", () => {
    const cases: Array<[string, number]> = [
      ['4096', 4096],
      ['8k', 8192],
      ['4M', 4 << 20],
      ['1g', 2 ** 30],
      ['2t', 2 * 2 ** 40],
      ['0x1000', 4096],
    ];
    for (const [text, bytes] of cases) assert.equal(parseMemsize(text, '-L'), bytes, text);
    for (const bad of ['', '4mb', '-1', '1.5g', 'k'])
      assert.throws(() => parseMemsize(bad, '-L'), /-L '.*': not a size/, bad);
  });
});

describe('--dump and --dump-nodes lines (numactl shm.c)', () => {
  it('folds pages into runs and prints them as numactl does', () => {
    const pols = [
      { mode: 2, nodes: [1] },
      { mode: 2, nodes: [1] },
      { mode: 0, nodes: [] },
      { mode: 3, nodes: [0, 1] },
    ];
    const runs = pageRuns(pols, 4096, samePolicy);
    assert.deepEqual(
      runs.map((r) => [r.start, r.end, r.value.mode]),
      [
        [0, 8192, 2],
        [8192, 12288, 0],
        [12288, 16384, 3],
      ],
    );
    // numactl 2.0.16 in a lab guest: "0000000000000000-0000000000400000: bind : 1 " (default runs left out).
    assert.equal(
      renderPolicyDump(runs, 0x1000),
      '0000000000001000-0000000000003000: bind : 1 \n0000000000004000-0000000000005000: interleave : 0 1 \n',
    );
    assert.equal(
      renderNodeDump(
        pageRuns([0, 1, 1, 0], 4096, (a, b) => a === b),
        0,
      ),
      '0000000000000000-0000000000001000: 0\n0000000000001000-0000000000003000: 1\n0000000000003000-0000000000004000: 0\n',
    );
    assert.equal(
      renderNodeDump(
        pageRuns([], 4096, (a, b) => a === b),
        0,
      ),
      '',
    );
  });
});

describe('run --shm/--file on this machine', () => {
  it('a tmpfs file: created at --offset + --length, bound, touched, dumped; the policy stays with the file', (t) => {
    if (!existsSync('/dev/shm')) return t.skip('no /dev/shm (tmpfs) here');
    const path = join('/dev/shm', `numakit-test-${process.pid}`);
    dirs.push(path);
    const r = numakit([
      'run',
      '-L',
      '64k',
      '-o',
      '8k',
      '-M',
      '0640',
      '-f',
      path,
      '-m',
      '0',
      '--touch',
      '--dump',
      '--dump-nodes',
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, `numakit: run: created ${path} (mode 0640)\n`);
    assert.equal(r.stdout, '0000000000002000-0000000000012000: bind : 0 \n0000000000002000-0000000000012000: 0\n');
    assert.equal(statSync(path).size, 72 << 10);
    assert.equal(statSync(path).mode & 0o777, 0o640 & ~process.umask());
    // A second run without --length maps the whole file: the first 8 KiB have no policy.
    const again = numakit(['run', '-f', path, '--dump']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, '0000000000002000-0000000000012000: bind : 0 \n');
    assert.equal(again.stderr, '');
  });

  it('a SysV segment: key file and segment created, the policy dumped by a later run', () => {
    const key = join(tmp(), 'key');
    const r = numakit(['run', '--length=1m', '--shm', key, '--interleave=0', '--dump']);
    try {
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /^numakit: run: created the shm key file .*\/key \(mode 0600\)\n/);
      assert.match(r.stderr, /created the shared memory segment .*\/key \(id 0, mode 0600, 1 MiB\)\n$/);
      assert.equal(r.stdout, '0000000000000000-0000000000100000: interleave : 0 \n');
      const again = numakit(['run', '--shm', key, '--dump-nodes', '--dump']);
      assert.equal(again.status, 0, again.stderr);
      assert.equal(
        again.stdout,
        '0000000000000000-0000000000100000: 0\n0000000000000000-0000000000100000: interleave : 0 \n',
      );
    } finally {
      const k = ftok(key, 0);
      const id = k === null ? null : shmget(k, 0, 0);
      if (id !== null) shmRemove(id);
    }
  });

  it('refusals leave nothing behind: no key file without --length, no segment or file half made', () => {
    const d = tmp();
    const missing = numakit(['run', '--shm', join(d, 'nokey'), '--dump']);
    assert.equal(missing.status, 1);
    assert.equal(
      missing.stderr,
      `numakit: run: --shm ${join(d, 'nokey')}: no such key file; give --length to create it and the segment\n`,
    );
    assert.equal(existsSync(join(d, 'nokey')), false);
    const nofile = numakit(['run', '-f', join(d, 'nofile'), '--dump']);
    assert.equal(nofile.status, 1);
    assert.match(nofile.stderr, /no such file; give --length to create it\n$/);
    const badNode = numakit(['run', '-L', '64k', '-f', join(d, 'f'), '-m', '9']);
    assert.equal(badNode.status, 1);
    assert.match(badNode.stderr, /^numakit: run: invalid node specification '9': node 9 does not exist/);
    assert.equal(badNode.stderr.trim().split('\n').length, 1, badNode.stderr); // checked before anything is made
    assert.equal(existsSync(join(d, 'f')), false);
    const unaligned = numakit(['run', '-L', '5000', '-f', join(d, 'g'), '-m', '0']);
    assert.equal(unaligned.status, 1);
    assert.match(
      unaligned.stderr,
      /--file .*\/g: the range \(--offset, --length 5000\) is not aligned to its 4 KiB pages\n$/,
    );
    assert.equal(existsSync(join(d, 'g')), false);
  });
});
