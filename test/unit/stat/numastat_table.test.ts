// The numastat table engine: C rounding, widths, folding, hiding zeros.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cFixed, displayTable, newTable, setCell, autoWidth } from '../../../src/render/numastat_table.js';

test('cFixed rounds exact ties to even like glibc printf, and everything else like toFixed', () => {
  const cases: [number, number, string][] = [
    [0.125, 2, '0.12'],
    [0.375, 2, '0.38'],
    [2.5, 0, '2'],
    [3.5, 0, '4'],
    [1.005, 2, '1.00'],
    [0.0625, 2, '0.06'],
    [95357.16015625, 2, '95357.16'],
    [0, 2, '0.00'],
    [12, 0, '12'],
    [9433.484375, 2, '9433.48'],
  ];
  for (const [v, p, want] of cases) assert.equal(cFixed(v, p), want, `${v} %.${p}f`);
});

function small(): ReturnType<typeof newTable> {
  const t = newTable(1, 1, 2, 3);
  t.width.fill(8);
  t.align.fill('right');
  t.align[0] = 'left';
  ['', 'A', 'B', 'C'].forEach((h, c) => h && setCell(t, { row: 0, col: c, cell: { t: 'str', s: h } }));
  setCell(t, { row: 1, col: 0, cell: { t: 'str', s: 'one' } });
  setCell(t, { row: 2, col: 0, cell: { t: 'str', s: 'two' } });
  [1, 0, 3].forEach((v, i) => setCell(t, { row: 1, col: 1 + i, cell: { t: 'num', v } }));
  [0, 0, 0].forEach((v, i) => setCell(t, { row: 2, col: 1 + i, cell: { t: 'num', v } }));
  return t;
}

test('displayTable folds columns into sections at the screen width, with a blank line between', () => {
  assert.equal(
    displayTable(small(), { screenWidth: 24, showZero: true }),
    '               A       B\none            1       0\ntwo            0       0\n\n               C\none            3\ntwo            0\n',
  );
});

test('displayTable -z hides all-zero rows and columns', () => {
  assert.equal(
    displayTable(small(), { screenWidth: 1000, showZero: false }),
    '               A       C\none            1       3\n',
  );
});

test('displayTable reports tables without data as numastat does', () => {
  assert.equal(displayTable(newTable(1, 1, 1, 1), { screenWidth: 80, showZero: true }), 'Table has no data.\n');
  const t = newTable(1, 1, 1, 1);
  setCell(t, { row: 1, col: 1, cell: { t: 'num', v: 0 } });
  assert.equal(displayTable(t, { screenWidth: 80, showZero: false }), 'Table has no non-zero data.\n');
});

test('autoWidth is the widest formatted cell plus a gutter, within bounds (labels are cut at the max)', () => {
  const t = small();
  setCell(t, { row: 1, col: 0, cell: { t: 'str', s: 'a-very-long-label-longer-than-24' } });
  autoWidth(t, { col: 0, min: 16, max: 24 });
  assert.equal(t.width[0], 24);
  autoWidth(t, { col: 1, min: 4, max: 16 });
  assert.equal(t.width[1], 5);
});
