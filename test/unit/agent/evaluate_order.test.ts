// The last tie-break of policy/agent/evaluate.ts's better(): node sets equal in every score
// go by their node list in code-point order, the order localeCompare gave for lists of digits
// and commas (it is no longer used: its first call builds an ICU collator).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { better, type Scored } from '../../../src/policy/agent/evaluate.js';
import type { PolicyOptions } from '../../../src/policy/agent/types.js';

const scored = (nodes: number[]): Scored => ({
  set: [],
  reach: 0.5,
  spare: 1,
  here: false,
  placement: { nodes, cpus: null, moveFrom: [], moveBytes: 0, localityNow: 0, localityAfter: 0.5 },
});
const opts = { strategy: 'balance' } as PolicyOptions;

describe('better: equal sets go by their node list', () => {
  const cases: Array<[number[], number[]]> = [
    [[0], [1]],
    [[0, 1], [1]],
    [
      [0, 1],
      [0, 1, 2],
    ],
    [[1, 2], [2]],
    [[10], [2]],
    [
      [0, 3],
      [1, 2],
    ],
  ];
  for (const [first, second] of cases) {
    it(`${first} before ${second}, as localeCompare put them`, () => {
      const [a, b] = [first.join(','), second.join(',')];
      assert.equal(Math.sign(a.localeCompare(b)), -1);
      assert.equal(Math.sign(better(scored(first), scored(second), 1, opts)), -1);
      assert.equal(Math.sign(better(scored(second), scored(first), 1, opts)), 1);
    });
  }
  it('the same list: 0', () => assert.equal(better(scored([0, 1]), scored([0, 1]), 1, opts), 0));
});
