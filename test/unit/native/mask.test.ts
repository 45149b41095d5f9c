import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromMask, longsFor, maskBitsFor, toMask } from '../../../src/native/mask.ts';
import { parsePossibleCount } from '../../../src/native/possible.ts';

test('longsFor rounds bits up to whole unsigned longs', () => {
  for (const [bits, longs] of [
    [0, 1],
    [1, 1],
    [64, 1],
    [65, 2],
    [1024, 16],
    [4097, 65],
  ] as const) {
    assert.equal(longsFor(bits), longs, `${bits} bits`);
  }
  assert.throws(() => longsFor(-1), RangeError);
});

test('toMask and fromMask round-trip ids across word boundaries', () => {
  const cases: Array<[number[], number]> = [
    [[], 8],
    [[0], 1],
    [[63, 64], 128],
    [[0, 5, 127, 128, 1023], 1024],
  ];
  for (const [ids, nbits] of cases) {
    const mask = toMask(ids, nbits);
    assert.equal(mask.length, longsFor(nbits));
    assert.deepEqual(fromMask(mask, nbits), ids);
  }
});

test('toMask sets the bit the kernel expects', () => {
  assert.deepEqual([...toMask([0, 1, 65], 128)], [3n, 2n]);
});

test('toMask rejects ids outside the mask', () => {
  assert.throws(() => toMask([64], 64), /id 64 does not fit a mask of 64 bits/);
  assert.throws(() => toMask([-1], 64), RangeError);
  assert.throws(() => toMask([1.5], 64), RangeError);
});

test('fromMask stops at nbits', () => {
  assert.deepEqual(fromMask(BigUint64Array.of(0xffn), 4), [0, 1, 2, 3]);
});

test('maskBitsFor grows the mask for large ids so the kernel judges them', () => {
  assert.equal(maskBitsFor([0, 1], 2), 2);
  assert.equal(maskBitsFor([5], 1), 6);
  assert.equal(maskBitsFor([], 4), 4);
  assert.equal(maskBitsFor([1e9], 1), 32768);
});

test('parsePossibleCount is the highest id plus one', () => {
  for (const [text, n] of [
    ['0\n', 1],
    ['0-1\n', 2],
    ['0-3,8-11\n', 12],
    ['0,2,5', 6],
    ['\n', 0],
  ] as const) {
    assert.equal(parsePossibleCount(text), n, JSON.stringify(text));
  }
  assert.throws(() => parsePossibleCount('0-x'), /malformed id list '0-x'/);
});
