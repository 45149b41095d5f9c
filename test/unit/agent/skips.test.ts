// policy/agent/skips.ts: the one table of why the agent leaves a process alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SKIPS, skipText } from '../../../src/policy/agent/skips.js';

test('the skips after which a process cools down: nothing to gain now, or nothing the agent may do', () => {
  const cooling = Object.entries(SKIPS)
    .filter(([, r]) => r.coolsDown)
    .map(([k]) => k)
    .sort();
  assert.deepEqual(cooling, ['cold-memory', 'local', 'low-gain', 'no-permission', 'pinned-memory']);
});

test('silent skips: every small, idle or kernel process, the agent itself, init, a cooldown, a busy one too young yet', () => {
  const silent = Object.entries(SKIPS)
    .filter(([, r]) => !r.logged)
    .map(([k]) => k)
    .sort();
  assert.deepEqual(silent, ['cooldown', 'idle', 'init', 'kernel-thread', 'self', 'small', 'young']);
});

test('skipText: the reason decided with the skip first, else the table, else its name', () => {
  assert.equal(skipText('excluded'), 'matches --exclude');
  assert.equal(
    skipText('pinned-cpus', 'CPU affinity of pid 7 set by the user'),
    'CPU affinity of pid 7 set by the user',
  );
  assert.equal(skipText('no-room'), 'no-room');
  for (const [k, r] of Object.entries(SKIPS))
    assert.ok(
      !r.logged ||
        r.text !== null ||
        [
          'pinned-memory',
          'no-permission',
          'local',
          'low-gain',
          'cold-memory',
          'no-room',
          'budget',
          'no-memory',
          'pinned-cgroup',
          'confirming',
        ].includes(k),
      k,
    );
});
