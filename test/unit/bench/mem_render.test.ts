import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMemCsv, MEM_CSV_HEADER } from '../../../src/render/bench/mem_csv.ts';
import { renderMemText } from '../../../src/render/bench/mem_text.ts';
import { renderProgress } from '../../../src/render/bench/progress.ts';
import { assertGolden } from '../../helpers/cli.ts';
import { twoNodeMem } from './results.ts';

test('the human matrices: rows CPU nodes, columns memory nodes, ratios to local, marked cells', () => {
  const text = renderMemText(twoNodeMem());
  assertGolden('bench/mem-2node.txt', text);
  assert.match(text, /node 0 \(4 thr\)\s+40\.0 \(1\.00x\)\s+24\.0\* \(0\.60x\)/);
  assert.match(
    text,
    /\* column node 1: only 97\.3% of 98304 pages were on node 1 \(move_pages: node 0: 2654, node 1: 95650\)/,
  );
});

test('csv: one line per figure with its placement share', () => {
  const lines = renderMemCsv(twoNodeMem()).trim().split('\n');
  assert.equal(lines[0], MEM_CSV_HEADER);
  assert.equal(lines.length, 1 + 4 * 4 + 4 + 4);
  assert.ok(lines.includes('bandwidth,read,0,1,24.000,GB/s,23.280,21.600,24.000,4,0.9730,false'));
  assert.ok(lines.includes('loaded_latency,chase,1,0,255.00,ns,255.00,249.90,267.75,4,1.0000,true'));
});

test('progress line: bar, count, ETA from the pace so far', () => {
  const line = renderProgress(12, 48, 10, 'read node 0 -> node 1', 70);
  assert.equal(line, '\r[=====>              ] 12/48 eta 0:30  read node 0 -> node 1'.padEnd(70));
  assert.match(renderProgress(0, 10, 0, 'x'), /eta \?/);
});
