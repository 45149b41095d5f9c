// Sizes printed one way everywhere (binary units, one decimal where it says something), and plurals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes, plural } from '../../../src/model/bytes.js';

test('formatBytes', () => {
  const GiB = 2 ** 30;
  const cases: [number | null, string][] = [
    [null, '?'],
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [391 * 2 ** 20, '391 MiB'],
    [96 * GiB, '96 GiB'],
    [88.5 * GiB, '88.5 GiB'],
    [127.5 * GiB, '127.5 GiB'],
    [192 * GiB, '192 GiB'],
    [1.44 * GiB, '1.4 GiB'],
    [3 * 2 ** 40, '3 TiB'],
  ];
  for (const [b, want] of cases) assert.equal(formatBytes(b), want, String(b));
});

test('plural', () => {
  assert.equal(plural(1, 'rx queue'), '1 rx queue');
  assert.equal(plural(16, 'rx queue'), '16 rx queues');
  assert.equal(plural(0, 'IRQ'), '0 IRQs');
});
