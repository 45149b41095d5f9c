// policy/agent/candidates.ts sameSet: the agent compares each process's CPU list with the CPUs
// it may use at every pass (1,792 ids each on the large machine). Table of what it answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpusPinned, sameSet } from '../../../src/policy/agent/candidates.js';

const all = Array.from({ length: 1792 }, (_, i) => i);

test('sameSet: the same ids in any order; duplicates and lengths as before', () => {
  const cases: [number[], number[], boolean][] = [
    [[], [], true],
    [[0, 1, 2], [0, 1, 2], true],
    [[2, 0, 1], [0, 1, 2], true],
    [[0, 1, 2], [0, 1, 3], false],
    [[0, 1], [0, 1, 2], false],
    [[0, 0, 1], [0, 1, 1], true],
    [all, [...all], true],
    [all, [...all.slice(0, -1), 1792], false],
  ];
  for (const [a, b, want] of cases) assert.equal(sameSet(a, b), want, `${a.slice(0, 4)} ~ ${b.slice(0, 4)}`);
  assert.equal(sameSet(all, all), true);
});

test('cpusPinned: a process allowed every CPU it may use is not pinned; one allowed fewer is', () => {
  const p = { cpusAllowed: all, cpusPermitted: [...all], agentCpus: null };
  assert.equal(cpusPinned(p), false);
  assert.equal(cpusPinned({ ...p, cpusAllowed: all.slice(0, 56) }), true);
  assert.equal(cpusPinned({ ...p, cpusAllowed: all.slice(0, 56), agentCpus: all.slice(0, 56) }), false);
});
