// render/stat_top.ts: the bar, and a frame that fits the terminal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bar, renderTopFrame } from '../../../src/render/stat_top.js';

test('bar fills in proportion and clamps', () => {
  assert.equal(bar(0.5, 10), '[#####.....]');
  assert.equal(bar(1.7, 4), '[####]');
  assert.equal(bar(-1, 4), '[....]');
});

test('a frame never exceeds the terminal width or height', () => {
  const nodes = [0, 1].map((id) => ({
    id,
    totalBytes: 16 * 2 ** 30,
    freeBytes: 4 * 2 ** 30,
    hitRate: 1234.4,
    missRate: 20000,
    foreignRate: null,
    otherRate: 0,
  }));
  const lines = renderTopFrame({
    time: '12:00:00',
    intervalSeconds: 1,
    nodes,
    procs: [],
    processCount: 0,
    width: 40,
    height: 5,
  });
  assert.equal(lines.length, 5);
  for (const l of lines) assert.ok(l.length <= 40, l);
  assert.match(lines[4]!, /^   0 \[#{8}\.{2}\]   75%/);
});
