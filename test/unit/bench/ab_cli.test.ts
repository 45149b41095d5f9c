// bench ab with plain commands on this machine: bindings reach the workload, CPU of the whole
// process tree is counted, failed runs are excluded and said, and bad input is one line each.
// Nothing here changes the host: tuned:/agent variants are only checked as a non-root user.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAffinity } from '../../../src/native/affinity.ts';
import type { AbResult } from '../../../src/model/bench.ts';
import { REPO_DIR, runMain } from '../../helpers/cli.ts';

const fast = ['--runs', '3', '--settle', '0', '--seed', '7'];

test("bench ab: each variant's binding reaches its runs; per-run CPU of the process tree; JSON result", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-ab-'));
  try {
    const cpus = getAffinity(0);
    const one = cpus.at(-1)!;
    const log = join(dir, 'log');
    // The workload: a shell whose child spins (CPU the shell waits for), then records its CPUs.
    const script = `sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'; echo "cpus $(grep Cpus_allowed_list /proc/self/status | cut -f2)" >> ${log}`;
    const r = await runMain([
      'bench',
      'ab',
      ...fast,
      '--variant',
      'default=',
      '--variant',
      `pinned=--physcpubind=${one}`,
      '--json',
      '--',
      'sh',
      '-c',
      script,
    ]);
    assert.equal(r.code, 0, r.err);
    const res = JSON.parse(r.out) as AbResult;
    assert.equal(res.runs.length, 6);
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[1]);
    assert.equal(lines.length, 6);
    assert.equal(lines.filter((l) => l === String(one)).length, cpus.length > 1 ? 3 : 6, lines.join(','));
    for (const run of res.runs) {
      assert.ok(run.ok && run.exitCode === 0);
      assert.ok(run.userS + run.systemS > 0.01, `CPU of the tree: ${run.userS} + ${run.systemS}`);
      assert.ok(run.minorFaults > 0 && run.wallS > 0);
      assert.ok(Object.keys(run.numastat).length >= 1);
    }
    const rounds = [1, 2, 3].map((k) =>
      res.runs
        .filter((x) => x.round === k)
        .map((x) => x.variant)
        .sort(),
    );
    assert.deepEqual(
      rounds,
      [
        ['default', 'pinned'],
        ['default', 'pinned'],
        ['default', 'pinned'],
      ],
      'each round runs every variant once',
    );
    assert.equal(res.summary.length, 2);
    assert.equal(res.summary[0]!.verdict, 'baseline');
    assert.ok(res.summary[1]!.ratio !== null);
    assert.deepEqual(getAffinity(0), cpus, "numakit's own thread is put back");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a workload that exits non-zero: every run reported and excluded, exit 1', async () => {
  const r = await runMain([
    'bench',
    'ab',
    // 5: a verdict (here "no difference") needs at least 5 runs of each variant.
    ...['--runs', '5', '--settle', '0', '--seed', '7'],
    '--variant',
    'a=',
    '--variant',
    'b=--localalloc',
    '--',
    'sh',
    '-c',
    'exit 3',
  ]);
  assert.equal(r.code, 1);
  assert.match(r.out, /note: a run 1 exited with status 3: excluded from the statistics/);
  assert.match(r.out, /b: no successful run to compare/);
});

test("--metric: the workload's own figure, higher is better", async () => {
  const r = await runMain([
    'bench',
    'ab',
    // 5: a verdict (here "no difference") needs at least 5 runs of each variant.
    ...['--runs', '5', '--settle', '0', '--seed', '7'],
    '--variant',
    'a=',
    '--variant',
    'b=--localalloc',
    '--metric',
    'rate: ([0-9.]+)',
    '--json',
    '--',
    'echo',
    'rate: 41.5',
  ]);
  assert.equal(r.code, 0, r.err);
  const res = JSON.parse(r.out) as AbResult;
  assert.ok(res.runs.every((x) => x.metric === 41.5));
  assert.deepEqual(res.summary[1]!.ratio, { value: 1, low: 1, high: 1 });
  assert.match(res.summary[1]!.verdict, /no difference measured/);
});

for (const [args, message, code] of [
  [
    ['--variant', 'a=', '--variant', 'b=', '--metric', 'nope ([0-9]+)', '--', 'echo', 'hello'],
    /--metric 'nope \(\[0-9\]\+\)' matched nothing in the output of (a|b) run 1 \(its last line: 'hello'\)/,
    1,
  ],
  [
    ['--variant', 'a=', '--variant', 'b=', '--metric', 'no group', '--', 'true'],
    /has no \(group\) to capture the number/,
    2,
  ],
  [['--variant', 'a=', '--variant', 'b=', '--metric', '(', '--', 'true'], /--metric '\(':/, 2],
  [
    ['--variant', 'a=', '--variant', 'far=--membind=7', '--', 'true'],
    /variant 'far': invalid node specification '7': node 7 does not exist/,
    1,
  ],
  [['--variant', 'a=', '--variant', 'b=--interleave', '--', 'true'], /variant 'b': .*--interleave needs a value/, 2],
  [
    ['--variant', 'a=', '--variant', 'b=', '--', '/nonexistent/workload'],
    /cannot run '\/nonexistent\/workload': No such file or directory/,
    127,
  ],
  [['--variant', 'a=', '--variant', 'b='], /no workload; give it after '--'/, 2],
  [['--variant', 'a=', '--', 'true'], /at least two --variant/, 2],
  [['--variant', 'a=', '--variant', 'b=', '--runs', '2', '--', 'true'], /--runs 2: at least 3/, 2],
  [
    ['--variant', 'a=', '--variant', 'b=', '--numa-balancing', 'maybe', '--', 'true'],
    /--numa-balancing maybe: expected one of keep, off, on/,
    2,
  ],
] as const) {
  test(`bench ab ${args
    .filter((a) => a !== '--variant')
    .join(' ')
    .slice(0, 60)}: one line, exit ${code}`, async () => {
    const r = await runMain(['bench', 'ab', '--settle', '0', '--runs', '3', ...args]);
    assert.equal(r.code, code, r.err);
    assert.match(r.err, message);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  });
}

test('tuned: and agent variants as a non-root user: refused before anything runs or changes', (t) => {
  const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  // A checkout under a directory only root may enter cannot be run as nobody at all.
  const probe = spawnSync(asNobody[0] ?? 'true', [
    ...asNobody.slice(1),
    'test',
    '-r',
    join(REPO_DIR, 'src/cli/bin.ts'),
  ]);
  if (asNobody.length > 0 && probe.status !== 0) return t.skip(`user nobody cannot read ${REPO_DIR}`);
  for (const [variant, message] of [
    [
      'tuned:database',
      /variant 'tuned:database' needs root: \d+ change\(s\) not writable by uid \d+: .*; nothing was changed/,
    ],
    ['agent', /variant 'agent' needs root: .*nothing was changed/],
  ] as const) {
    const argv = [
      ...asNobody,
      process.execPath,
      '--import',
      'tsx',
      join(REPO_DIR, 'src/cli/bin.ts'),
      'bench',
      'ab',
      '--variant',
      'a=',
      '--variant',
      variant,
      '--settle',
      '0',
      '--',
      'true',
    ];
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: REPO_DIR });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
});
