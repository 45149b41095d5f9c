import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareNumastat } from './numastat_compare.js';

const T = 'numa_hit                  241488\nlocal_node                241488\n';

test('equal outputs and small counter growth pass', () => {
  assert.deepEqual(compareNumastat(T, T), []);
  assert.deepEqual(compareNumastat(T.replace(/241488/g, '241500'), T), []);
});

test('a different layout, line count or a number off by more than the tolerance is reported', () => {
  assert.equal(compareNumastat(T.replace('numa_hit ', 'numa_hit'), T).length, 1); // one space less
  assert.match(compareNumastat(T + 'x\n', T)[0]!, /^4 lines, numastat printed 3/);
  assert.match(compareNumastat(T.replace('241488', '999999'), T)[0]!, /line 1, number 1: 999999 vs numastat 241488/);
});
