import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseVariant, parseVariants } from '../../../src/cli/commands/bench_ab_variants.ts';
import { summarize, verdict } from '../../../src/bench/ab_summary.ts';
import type { AbRun } from '../../../src/model/bench.ts';

test('variant specs: default, numactl options, agent, tuned', () => {
  assert.deepEqual(parseVariant('default='), { name: 'default', kind: 'default', spec: '' });
  const local = parseVariant('local=--cpunodebind=0 --membind=0');
  assert.equal(local.kind, 'bind');
  assert.deepEqual(local.binding?.memory, { kind: 'membind', spec: '0' });
  assert.deepEqual(local.binding?.cpus, { kind: 'cpunodebind', spec: '0' });
  assert.equal(parseVariant('--interleave=all').name, '--interleave=all');
  assert.deepEqual(parseVariant('agent'), { name: 'agent', kind: 'agent', spec: 'agent', agentArgs: [] });
  assert.deepEqual(parseVariant('a2=agent:--tune pages').agentArgs, ['--tune', 'pages']);
  assert.deepEqual(parseVariant('tuned:database'), {
    name: 'tuned:database',
    kind: 'tuned',
    spec: 'tuned:database',
    profile: 'database',
  });
});

for (const [spec, message] of [
  ['x=--membind', /variant 'x': --membind needs a value/],
  ['x=--membind=0 --interleave=all', /variant 'x': conflicting policies/],
  ['x=--bogus', /variant 'x': .*unknown option '--bogus'/],
  ['x=--membind=0 sysbench', /'sysbench' is not a numactl option \(the workload goes after --\)/],
  ['x=--show', /--show, --hardware and --help print instead of binding/],
  ['x=--all', /binds nothing/],
  ['noequals', /expected NAME=OPTIONS/],
  ['bad$name=--membind=0', /letters, digits/],
  ['t=tuned:', /tuned:PROFILE takes one profile name/],
] as const) {
  test(`variant '${spec}' numactl would refuse: a usage error naming it`, () => {
    assert.throws(
      () => parseVariant(spec),
      (e: Error & { exitCode?: number }) => message.test(e.message) && e.exitCode === 2,
    );
  });
}

test('at least two variants, names unique', () => {
  assert.throws(() => parseVariants(['a=']), /at least two --variant/);
  assert.throws(() => parseVariants(['a=', 'a=--membind=0']), /two variants are named 'a'/);
});

function run(variant: string, metric: number | null, wallS: number, extra: Partial<AbRun> = {}): AbRun {
  return {
    variant,
    round: 1,
    order: 1,
    warmup: false,
    ok: true,
    exitCode: 0,
    signal: null,
    wallS,
    userS: 1,
    systemS: 0.5,
    maxRssKb: 1,
    minorFaults: 10,
    majorFaults: 0,
    voluntaryCtxSwitches: 1,
    involuntaryCtxSwitches: 2,
    metric,
    numastat: { 0: { numa_miss: 0, other_node: 5 }, 1: { numa_miss: 3, other_node: 100 } },
    ...extra,
  };
}

const V = [
  { name: 'default', kind: 'default', spec: '' },
  { name: 'local', kind: 'bind', spec: '-m 0' },
  { name: 'same', kind: 'bind', spec: '-m 1' },
] as const;

test('summary: medians, failed runs excluded, ratio oriented so > 1 is better, verdict only outside 1', () => {
  const base = [100, 102, 98, 101, 99];
  const runs = [
    ...base.map((w) => run('default', null, w / 100)),
    ...base.map((w) => run('local', null, w / 130)),
    ...base.map((w, i) => run('same', null, (w + (i % 2 ? 1.5 : -1.5)) / 100)),
    run('local', null, 9, { ok: false, exitCode: 1, note: 'exited with status 1' }),
  ];
  const [d, l, s] = summarize([...V], runs, { metric: null, seed: 1 });
  assert.equal(d!.verdict, 'baseline');
  assert.equal(l!.runs, 6);
  assert.equal(l!.failed, 1);
  assert.ok(Math.abs(l!.ratio!.value - 1.3) < 1e-9);
  assert.match(l!.verdict, /^local is 1\.30x \[1\.\d\d, 1\.\d\d\] faster than default$/);
  assert.match(s!.verdict, /^no difference measured/);
  assert.equal(d!.otherNode, 105);
  assert.equal(d!.numaMiss, 3);
  assert.equal(d!.ctxSwitches, 3);
});

test('a metric where higher is better, and one where lower is', () => {
  const runs = [
    ...[10, 11, 9, 10, 10].map((m) => run('default', m, 1)),
    ...[5, 5.5, 4.5, 5, 5].map((m) => run('local', m, 1)),
  ];
  const higher = summarize([V[0], V[1]], runs, { metric: { better: 'higher' }, seed: 2 });
  assert.match(higher[1]!.verdict, /^local is 2\.00x \[[\d.]+, [\d.]+\] worse than default$/);
  const lower = summarize([V[0], V[1]], runs, { metric: { better: 'lower' }, seed: 2 });
  assert.match(lower[1]!.verdict, /^local is 2\.00x \[[\d.]+, [\d.]+\] better than default$/);
});

test('verdict wording', () => {
  assert.equal(
    verdict('local', 'default', { value: 1.31, low: 1.27, high: 1.36 }, { metric: null }),
    'local is 1.31x [1.27, 1.36] faster than default',
  );
  assert.equal(
    verdict('remote', 'default', { value: 0.8, low: 0.75, high: 0.85 }, { metric: null }),
    'remote is 1.25x [1.18, 1.33] slower than default',
  );
  assert.equal(
    verdict('x', 'default', { value: 1.01, low: 0.97, high: 1.05 }, { metric: null }),
    'no difference measured (1.01x [0.97, 1.05])',
  );
});

test('a verdict prints enough digits that its interval excludes 1, or is no verdict', () => {
  // The field report: "b is 1.04x [1.00, 1.11] slower than a" read as no difference.
  assert.equal(
    verdict('b', 'a', { value: 1 / 1.04, low: 1 / 1.11, high: 1 / 1.003 }, { metric: null }),
    'b is 1.040x [1.003, 1.110] slower than a',
  );
  assert.equal(
    verdict('b', 'a', { value: 1.05, low: 1.00004, high: 1.1 }, { metric: null }),
    'b is 1.05000x [1.00004, 1.10000] faster than a',
  );
  // Closer to 1 than six digits can show: said as no difference, whose interval then holds 1.
  assert.equal(
    verdict('b', 'a', { value: 1.05, low: 1.0000001, high: 1.1 }, { metric: null }),
    'no difference measured (1.05x [1.00, 1.10])',
  );
  for (const [v, lo, hi] of [
    [1.2, 1.001, 1.3],
    [0.8, 0.7, 0.9996],
    [1.5, 1.0049, 2],
    [0.9, 0.8, 0.99949],
  ] as const) {
    const text = verdict('b', 'a', { value: v, low: lo, high: hi }, { metric: null });
    const [, low, high] = /\[([\d.]+), ([\d.]+)\]/.exec(text)!;
    assert.ok(Number(low) > 1 && Number(high) > 1, text);
  }
});

test('no verdict from fewer than 5 successful runs of either variant', () => {
  const runs = [
    ...[100, 101, 99].map((w) => run('default', null, w / 100)),
    ...[100, 101, 99].map((w) => run('local', null, w / 200)),
  ];
  const [, l] = summarize([V[0], V[1]], runs, { metric: null, seed: 1 });
  assert.match(l!.verdict, /^no verdict: 3 runs, a verdict needs at least 5 of each \(2\.00x \[/);
  const five = [100, 101, 99, 100, 102];
  const enough = [...five.map((w) => run('default', null, w / 100)), ...five.map((w) => run('local', null, w / 200))];
  assert.match(summarize([V[0], V[1]], enough, { metric: null, seed: 1 })[1]!.verdict, /^local is 2\.\d+x .* faster/);
});
