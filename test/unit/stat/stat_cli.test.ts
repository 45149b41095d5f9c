// numakit stat on fixture machines: numakit's own formats (golden files), JSON, errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { assertGolden, runStat } from './helpers.js';

const GOLDEN_CASES: [string, string[]][] = [
  ['four-m.txt', ['-m']],
  ['four-p1403.txt', ['-p', '1403']],
  ['four-multi-huge.txt', ['-p', '1201', '-p', '1403']],
  ['four-procs.txt', ['--procs']],
  ['four-procs.json', ['--procs', '--json']],
  ['four-p-json.json', ['--json', '-p', 'postgres', '-p', '1100']],
  ['four-n-m-json.json', ['--json', '-n', '-m']],
];

for (const [file, args] of GOLDEN_CASES) {
  test(`stat ${args.join(' ')} on four-node matches test/golden/stat/${file}`, async () => {
    const r = await runStat('four-node', args);
    assert.equal(r.code, 0, r.err);
    assertGolden(file, r.out);
  });
}

test('native -m shows the fields numastat 2.0.16 drops, and huge page rows count every pool size', async () => {
  const r = await runStat('four-node', ['-m']);
  assert.match(r.out, /^SecPageTables /m);
  assert.match(r.out, /^FileHugePages /m);
  assert.doesNotMatch(r.out, /Token/);
  // node 1: 32 x 2 MiB + 2 x 1 GiB = 2112 MB (numastat says 64)
  assert.match(r.out, /^HugePages_Total\s+64\.00\s+2112\.00\s/m);
});

test('-p with a 1 GiB huge page mapping counts it as 1024 MB (numastat 2.0.16 counts 2)', async () => {
  const native = await runStat('four-node', ['-p', '1403']);
  assert.match(native.out, /^Huge\s+0\.00\s+1030\.00\s/m);
  const strict = await runStat('four-node', ['--numastat', '-p', '1403']);
  assert.match(strict.out, /^Huge\s+0\.00\s+8\.00\s/m);
});

test('--procs ranks by remote memory and gives locality', async () => {
  const r = await runStat('four-node', ['--procs', '--json']);
  const procs = JSON.parse(r.out).processes as {
    pid: number;
    locality: number | null;
    remoteBytes: number;
    cpuNodes: Record<string, number>;
  }[];
  assert.deepEqual(
    procs.map((p) => p.pid),
    [1403, 1302, 1201],
  );
  const java = procs[1]!;
  assert.ok(java.locality !== null && java.locality > 0.2 && java.locality < 0.3, String(java.locality));
  assert.equal(procs[0]!.locality, 0);
  assert.equal(procs[0]!.remoteBytes, 1030 * 1024 * 1024 + 40960);
  // postgres ran on nodes 0 and 1 (5 s : 3 s) with memory on both: its remote memory is weighted
  // like its locality, never 0 B next to a locality of 0.54.
  const pg = procs[2]!;
  assert.ok(pg.remoteBytes > 0.45 * 140 * 2 ** 20 && pg.remoteBytes < 0.47 * 141 * 2 ** 20, String(pg.remoteBytes));
});

test('--procs --top N keeps N processes', async () => {
  const r = await runStat('four-node', ['--procs', '--json', '--top', '1']);
  assert.equal(JSON.parse(r.out).processes.length, 1);
});

test('a pattern that matches nothing exits 1 with a message and prints nothing', async () => {
  const r = await runStat('four-node', ['-p', 'no-such-program']);
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.equal(r.err, "numakit: stat: no process matches 'no-such-program'\n");
});

test('a PID that is gone (or vanished while read) is skipped with a note, not an error', async () => {
  const r = await runStat('four-node', ['-p', '1201', '-p', '1605', '-p', '99999']);
  assert.equal(r.code, 0);
  assert.match(r.out, /for PID 1201 \(postgres\)/);
  assert.match(r.err, /PID 1605: no such process \(skipped\)/);
  assert.match(r.err, /PID 99999: no such process \(skipped\)/);
});

test('only gone PIDs: exit 1', async () => {
  const r = await runStat('four-node', ['-p', '1605']);
  assert.equal(r.code, 1);
  assert.match(r.err, /none of the processes exists \(1605\)/);
});

test('bad options are usage errors (exit 2) naming the option', async () => {
  const cases: [string[], RegExp][] = [
    [['--top', '0', '--procs'], /--top needs a positive integer, got '0'/],
    [['--watch', 'x'], /--watch needs a positive number/],
    [['--numastat', '--json'], /cannot be used together/],
    [['--watch', '1', '-m'], /--watch and -m cannot be used together/],
    [['--top', '3'], /--top goes with --procs/],
    [['--procs', '-n'], /--procs and -n cannot be used together/],
    [['-m', '--procs'], /--procs and -m cannot be used together/],
    [['--procs', '42'], /--procs and process '42' cannot be used together/],
    [['--m'], /unknown option '--m'/],
    [['-sx'], /-sx: expected a node number attached to -s/],
    [['--bogus'], /--bogus/],
  ];
  for (const [args, re] of cases) {
    const r = await runStat('four-node', args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, re);
  }
});

test('--watch --count N prints a header and N lines of rates; NDJSON with --json', async () => {
  const text = await runStat('four-node', ['--watch', '0.05', '--count', '2']);
  const lines = text.out.trimEnd().split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[0]!, /^time\s+node0\s/);
  assert.match(lines[2]!, /^\d\d:\d\d:\d\d\s+0\s+0\s/);
  const json = await runStat('four-node', ['--watch', '0.05', '--count', '2', '--json']);
  const objs = json.out
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(objs.length, 2);
  assert.equal(objs[0].nodes['1'].numa_hit, 0);
  assert.equal(objs[0].nodes['1'].freeBytes, (3 * 1024 * 1024 + 777) * 1024);
  // The time is the full ISO 8601 instant with its offset, not HH:MM:SS of an unknown day.
  assert.match(objs[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  assert.ok(Math.abs(Date.parse(objs[0].time) - Date.now()) < 60_000);
});

test('another user\'s numa_maps shows "no permission" with a hint, not zeros (real /proc, as nobody)', (t) => {
  const bin = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/setpriv') || !existsSync(bin))
    return t.skip('needs root, setpriv and a build');
  const r = spawnSync(
    '/usr/bin/setpriv',
    [
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      process.execPath,
      bin,
      'stat',
      '-p',
      '1',
      '-p',
      String(process.pid),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 1, `not all that was asked was read: exit 1\n${r.stderr}`);
  assert.match(r.stdout, /^1 \(\S+\)\s+no permission\s+no permission/m);
  assert.match(r.stderr, /run numakit as root/);
});
