// bench/agent-vs-numad.mjs --help prints its usage and runs nothing (a run boots a guest for minutes).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';

it('agent-vs-numad --help: the usage, exit 0, no guest', () => {
  // --limit 1: were --help ignored, the run it started would stop its guest within a second.
  const r = spawnSync(process.execPath, ['bench/agent-vs-numad.mjs', '--help', '--limit', '1'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /--scenarios appears,present,idle,fill,large,burst,churn/);
  assert.doesNotMatch(r.stdout, /^bench: /m, 'nothing run');
});
