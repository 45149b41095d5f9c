// alive(): this process exists, init exists even when it is another user's (EPERM), a reaped child does not.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { alive } from '../../../src/runtime/pid_alive.js';

it('tells a live process, another user’s, and one that has exited', () => {
  assert.equal(alive(process.pid), true);
  assert.equal(alive(1), true, 'pid 1 always exists (EPERM for a user that is not root)');
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  assert.equal(alive(gone), false);
});
