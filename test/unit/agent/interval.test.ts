// The adaptive interval (policy/agent/interval.ts): which passes are quiet, and how the sleep
// grows from --interval to --max-interval and falls back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextIntervalMs, quietPass } from '../../../src/policy/agent/interval.js';
import type { Decision, SkipReason } from '../../../src/policy/agent/types.js';

const skip = (s: SkipReason): Decision => ({ kind: 'skip', pid: 10, comm: 'x', skip: s, reason: '' });
const move: Decision = {
  kind: 'move',
  pid: 10,
  comm: 'x',
  placement: { cpus: [0], nodes: [0], memoryTo: null } as never,
  reason: '',
};

describe('quietPass', () => {
  const cases: Array<[string, Decision[], number, boolean]> = [
    ['no candidates, no baselines', [], 0, true],
    [
      'only skips (local, cooldown, pinned, no room)',
      [skip('local'), skip('cooldown'), skip('pinned-cpus'), skip('no-room')],
      0,
      true,
    ],
    ['a move decided', [skip('local'), move], 0, false],
    ['a move waits for the budget', [skip('budget')], 0, false],
    ['a fresh baseline taken (a process to judge next pass)', [], 1, false],
  ];
  for (const [name, decisions, baselines, want] of cases)
    it(name, () => assert.equal(quietPass(decisions, baselines), want));
});

describe('nextIntervalMs', () => {
  const o = { minMs: 5000, maxMs: 15000 };
  const cases: Array<[string, number | null, boolean, { minMs: number; maxMs: number }, number]> = [
    ['first pass: --interval', null, true, o, 5000],
    ['quiet: one --interval longer', 5000, true, o, 10000],
    ['quiet again: up to --max-interval', 10000, true, o, 15000],
    ['quiet at the max: stays there', 15000, true, o, 15000],
    ['busy: back to --interval at once', 15000, false, o, 5000],
    ['max not a multiple of the step: capped', 10000, true, { minMs: 5000, maxMs: 12000 }, 12000],
    ['--max-interval equal to --interval: never stretched', 5000, true, { minMs: 5000, maxMs: 5000 }, 5000],
  ];
  for (const [name, prev, quiet, opts, want] of cases)
    it(name, () => assert.equal(nextIntervalMs(prev, quiet, opts), want));
});
