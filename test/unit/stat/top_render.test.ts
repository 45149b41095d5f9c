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

test('nodes get promotion and demotion rates where the kernel counts them (nodeN/vmstat)', () => {
  const node = (id: number, tiers: boolean) => ({
    id,
    totalBytes: 2 ** 30,
    freeBytes: 2 ** 29,
    hitRate: 1,
    missRate: 0,
    foreignRate: 0,
    otherRate: 0,
    ...(tiers ? { promoteRate: id === 0 ? 2500 : 0, demoteRate: id === 0 ? 0 : 700 } : {}),
  });
  const frame = (tiers: boolean) =>
    renderTopFrame({
      time: '12:00:00',
      intervalSeconds: 1,
      nodes: [node(0, tiers), node(1, tiers)],
      procs: [],
      processCount: 0,
      width: 160,
      height: 10,
    });
  const with_ = frame(true).join('\n');
  assert.match(with_, /OTHER\/s  PROMO\/s  DEMO\/s/);
  assert.match(with_, /\n {3}0 .* {5}2500 {7}0\n/);
  assert.match(with_, /\n {3}1 .* {8}0 {5}700\n/);
  assert.doesNotMatch(frame(false).join('\n'), /PROMO/);
});
