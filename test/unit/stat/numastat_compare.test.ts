import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareNumastat } from './numastat_compare.js';

const T = (hit: number) => `numa_hit        ${String(hit).padStart(16)}\nlocal_node      ${String(hit).padStart(16)}\n`;

test('equal outputs pass; a value between the before and after reads passes, also with more digits', () => {
  assert.deepEqual(compareNumastat(T(9000), T(9000)), []);
  assert.deepEqual(compareNumastat(T(12000), T(9000), { after: T(15000) }), []);
});

test('a value outside [before, after] fails unless within the slack', () => {
  assert.match(
    compareNumastat(T(16000), T(9000), { after: T(15000) })[0]!,
    /line 1, number 1: 16000 outside numastat's \[9000, 15000\]/,
  );
  assert.deepEqual(compareNumastat(T(16000), T(9000), { after: T(15000), slack: 1000 }), []);
});

test("a row's own slack applies to that row only", () => {
  const out = compareNumastat(T(16000), T(9000), { after: T(15000), slack: 0, rowSlack: { numa_hit: 1000 } });
  assert.equal(out.length, 1, out.join('\n'));
  assert.match(out[0]!, /^line 2, number 1: 16000 outside/);
});

test('a number in another column, other text or another line count is a layout difference', () => {
  assert.match(
    compareNumastat(T(9000).replace('        9000', '       9000 '), T(9000))[0]!,
    /line 1 differs in layout/,
  );
  assert.match(compareNumastat(T(9000).replace('numa_hit', 'Numa_Hit'), T(9000))[0]!, /line 1 differs in layout/);
  assert.match(compareNumastat(T(9000) + 'x\n', T(9000))[0]!, /^4 lines, numastat printed 3 then 3/);
});
