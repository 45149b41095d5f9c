// A database's pool and a JVM's heap each commit their own memory beside them: 10% of it, at
// least 1 GiB. One rule (budget.ts committedWith), which both plans' sizing and wording use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BESIDE_MIN_GIB, BESIDE_SHARE, committedWith } from '../../../src/policy/plan/budget.js';
import { runMain } from '../../helpers/cli.js';

test('committedWith: main + 10%, at least 1 GiB', () => {
  const names = { what: 'server memory', main: 'pool', beside: 'server' };
  for (const [main, beside] of [
    [0.5, 1],
    [4, 1],
    [10, 1],
    [48, 4.8],
    [200, 20],
  ] as const) {
    const c = committedWith(main, names);
    assert.ok(Math.abs(c.besideGiB - beside) < 1e-9, `main ${main}: beside ${c.besideGiB}`);
    assert.ok(Math.abs(c.committed - (main + beside)) < 1e-9, `main ${main}: committed ${c.committed}`);
  }
  assert.equal(BESIDE_SHARE, 0.1);
  assert.equal(BESIDE_MIN_GIB, 1);
  assert.equal(
    committedWith(48, names).formula,
    'pool 48 GiB + server 4.8 GiB (10% of the pool, at least 1) = 52.8 GiB',
  );
});

type Derivation = { what: string; formula: string; value: string };

async function derivations(args: string[]): Promise<Derivation[]> {
  const r = await runMain(['--example', 'spark-2s', 'plan', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { derivations: Derivation[] }).derivations;
}

test('plan postgres and plan jvm size the server and the JVM by the same rule', async () => {
  for (const [args, what, names] of [
    [['postgres', '--buffer-pool', '8g'], 'server memory', { what: 'server memory', main: 'pool', beside: 'server' }],
    [['postgres', '--buffer-pool', '40g'], 'server memory', { what: 'server memory', main: 'pool', beside: 'server' }],
    [
      ['jvm', '--heap', '8g', '--jar', '/opt/app.jar'],
      'JVM memory',
      { what: 'JVM memory', main: 'heap', beside: 'native' },
    ],
    [
      ['jvm', '--heap', '40g', '--jar', '/opt/app.jar'],
      'JVM memory',
      { what: 'JVM memory', main: 'heap', beside: 'native' },
    ],
  ] as const) {
    const d = (await derivations([...args])).find((x) => x.what === what);
    const c = committedWith(Number.parseInt(args[2]!, 10), names);
    assert.equal(d?.formula, c.formula, args.join(' '));
  }
});
