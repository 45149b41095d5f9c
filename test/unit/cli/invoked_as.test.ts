// The overview's "try" and "next" lines can be pasted as they are: after the README's
// `npm ci && npm start` there is no numakit on PATH, so they read `npm start -- ARGS` there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invokedAs } from '../../../src/cli/invoked_as.js';
import { runMain } from '../../helpers/cli.js';

test('invokedAs: npm start in the clone, numakit elsewhere', () => {
  assert.equal(invokedAs({ npm_lifecycle_event: 'start', npm_package_name: 'numakit' }), 'npm start --');
  assert.equal(invokedAs({ npm_lifecycle_event: 'start', npm_package_name: 'other' }), 'numakit');
  assert.equal(invokedAs({}), 'numakit');
});

test('the overview run by npm start suggests npm start -- ARGS, never a bare numakit', async () => {
  const saved = { ...process.env };
  Object.assign(process.env, { npm_lifecycle_event: 'start', npm_package_name: 'numakit' });
  try {
    const r = await runMain(['--example', 'vm-flat-32']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ {2}npm start -- examples +# the shipped machine snapshots$/m);
    assert.match(r.out, /^ {2}npm start -- --example spark-2s topo$/m);
    assert.match(r.out, /^ {2}npm start -- doctor +audit/m);
    assert.doesNotMatch(r.out, /^ {2}numakit (examples|--example|doctor|topo)\b/m);
  } finally {
    for (const k of ['npm_lifecycle_event', 'npm_package_name']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
});
