import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapRatio, median, quantile, seededRandom, shuffled } from '../../../src/bench/stats.ts';

test('median of odd and even samples', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('quantile interpolates between neighbours', () => {
  assert.equal(quantile([1, 2, 3, 4, 5], 0.5), 3);
  assert.equal(quantile([0, 10], 0.25), 2.5);
});

test('bootstrap CI of a clear difference excludes 1 and brackets the ratio of medians', () => {
  const a = [10, 10.2, 9.9, 10.1, 10.05, 9.95, 10.1];
  const b = a.map((x) => x * 1.3);
  const ci = bootstrapRatio(a, b, { seed: 7 });
  assert.ok(Math.abs(ci.ratio - 1.3) < 1e-9);
  assert.ok(ci.low > 1.2 && ci.low <= ci.ratio && ci.ratio <= ci.high && ci.high < 1.4, JSON.stringify(ci));
});

test('bootstrap CI of two samples of the same spread includes 1', () => {
  const a = [10, 12, 9, 11, 10.5, 9.5, 11.5];
  const b = [11, 9.5, 10, 12, 10.2, 9.8, 11];
  const ci = bootstrapRatio(a, b, { seed: 3 });
  assert.ok(ci.low < 1 && ci.high > 1, JSON.stringify(ci));
});

test('the same seed gives the same interval and order', () => {
  const a = [1, 2, 3, 4, 5];
  const b = [2, 3, 4, 5, 6];
  assert.deepEqual(bootstrapRatio(a, b, { seed: 5 }), bootstrapRatio(a, b, { seed: 5 }));
  assert.deepEqual(shuffled(['a', 'b', 'c', 'd'], seededRandom(9)), shuffled(['a', 'b', 'c', 'd'], seededRandom(9)));
  assert.deepEqual([...shuffled([1, 2, 3, 4, 5], seededRandom(1))].sort(), [1, 2, 3, 4, 5]);
});
