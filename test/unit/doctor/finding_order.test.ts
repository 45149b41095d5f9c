// sortFindings compares plain rule names and ids by code unit instead of localeCompare (no ICU
// collator at start-up): the order must be exactly localeCompare's, for plain names and others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareNames } from '../../../src/model/finding.js';

const sign = (n: number) => Math.sign(n);

describe('compareNames', () => {
  const names = [
    '',
    'a',
    'a-b',
    'a/b',
    'a0',
    'a9',
    'ab',
    'a-',
    'a/',
    '-',
    '/',
    '0',
    'irq-locality',
    'irq-locality/eth0',
    'irq-locality/eth10',
    'irq-locality/eth2',
    'irqbalance',
    'irqbalance/daemon',
    'numa-off/cmdline',
    'numa-off/sockets',
    'numa-miss',
    'numa0',
    'node-health/offline-cpus',
  ];
  it('orders every pair of plain names as localeCompare does', () => {
    for (const a of names)
      for (const b of names) assert.equal(sign(compareNames(a, b)), sign(a.localeCompare(b)), `${a} vs ${b}`);
  });
  it('orders random plain names as localeCompare does', () => {
    const alphabet = 'az09-/mq';
    let seed = 1;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () =>
      Array.from({ length: Math.floor(rand() * 6) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = word();
      assert.equal(sign(compareNames(a, b)), sign(a.localeCompare(b)), `${a} vs ${b}`);
    }
  });
  it('leaves names with other characters to localeCompare (case, _ and . differ from code-unit order)', () => {
    const pairs: [string, string][] = [
      ['a_b', 'a-b'],
      ['B', 'a'],
      ['eth0.1', 'eth0-1'],
      ['ib_mlx5', 'ib-x'],
      ['x:1', 'x0'],
    ];
    for (const [a, b] of pairs) {
      assert.equal(sign(compareNames(a, b)), sign(a.localeCompare(b)), `${a} vs ${b}`);
    }
    const [upper, lower] = ['B', 'a'];
    assert.notEqual(
      sign(upper < lower ? -1 : 1),
      sign(upper.localeCompare(lower)),
      'code-unit order differs here, so localeCompare must decide',
    );
  });
});
