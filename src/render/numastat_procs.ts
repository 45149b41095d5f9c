// numastat -p: memory of processes per node in MB. One process (or -v): a table per process
// with Huge, Heap, Stack, Private and Total rows; several: one table with a row per process.
// Like numastat, a -v run reuses one table for every process, so the rows it once showed
// stay shown under -z and a -s order carries over to the next table. A process whose
// numa_maps could not be read shows "no permission" instead of zeros. Pure.
import type { NodeMemory, ProcessMemoryInfo } from '../model/stat.js';
import { sortColumn } from './numastat.js';
import {
  addTo,
  autoWidth,
  displayTable,
  markRowAlwaysShown,
  newTable,
  setCell,
  sortRowsDescending,
  zeroData,
  type NumastatTable,
} from './numastat_table.js';

const MiB = 1024 * 1024;
const CATEGORIES: readonly [keyof NodeMemory, string][] = [
  ['hugeBytes', 'Huge'],
  ['heapBytes', 'Heap'],
  ['stackBytes', 'Stack'],
  ['privateBytes', 'Private'],
];
export const NO_PERMISSION = 'no permission';

export interface ProcessTableOptions {
  readonly screenWidth: number;
  readonly showZero: boolean;
  readonly compress: boolean;
  readonly sort: number | null;
  readonly strict: boolean;
  /** -v: a table per process even when there are several. */
  readonly verbose: boolean;
}

function setup(nodes: readonly number[], rows: number, o: ProcessTableOptions): NumastatTable {
  const t = newTable(2, 1, rows + 2, nodes.length + 1);
  setCell(t, { row: 2 + rows + 1, col: 0, cell: { t: 'str', s: 'Total' } });
  t.width[0] = 16;
  t.align[0] = 'left';
  [...nodes.map((n) => `Node ${n}`), 'Total'].forEach((h, i) => {
    setCell(t, { row: 0, col: 1 + i, cell: { t: 'str', s: h } });
    setCell(t, { row: 1, col: 1 + i, cell: { t: 'rep', c: '-' } });
    t.width[1 + i] = 16;
    t.places[1 + i] = o.compress ? 0 : 2;
    t.align[1 + i] = 'right';
  });
  zeroData(t);
  return t;
}

function addProcess(
  t: NumastatTable,
  p: ProcessMemoryInfo,
  nodes: readonly number[],
  rowOf: (cat: number) => number,
): void {
  if (p.memory.kind !== 'ok') return;
  const totalCol = 1 + nodes.length;
  const totalRow = t.nRows - 1;
  // Plain loops (no array per addition): 2,000 processes on 32 nodes. The additions keep their
  // order (node, then category; row, total column, total row, grand total): the sums are floats.
  const byNode = p.memory.nodes;
  for (const id in byNode) {
    const mem = byNode[id]!;
    const col = 1 + nodes.indexOf(Number(id));
    if (col === 0) continue; // a node the node directory does not list
    for (let cat = 0; cat < CATEGORIES.length; cat++) {
      const v = mem[CATEGORIES[cat]![0]] / MiB;
      if (v === 0) continue;
      const row = rowOf(cat);
      addTo(t, { row, col, v });
      addTo(t, { row, col: totalCol, v });
      addTo(t, { row: totalRow, col, v });
      addTo(t, { row: totalRow, col: totalCol, v });
    }
  }
}

function markNoPermission(t: NumastatTable, row: number): void {
  for (let c = 1; c < t.nCols; c++) setCell(t, { row, col: c, cell: { t: 'str', s: NO_PERMISSION } });
}

function show(t: NumastatTable, nodes: readonly number[], dataRows: number, o: ProcessTableOptions): string {
  if (o.compress) for (let c = 0; c < t.nCols; c++) autoWidth(t, { col: c, min: 4, max: 16 });
  else autoWidth(t, { col: 0, min: 16, max: 24 });
  const rule = t.nRows - 2;
  markRowAlwaysShown(t, rule);
  for (let c = 0; c < t.nCols; c++) setCell(t, { row: rule, col: c, cell: { t: 'rep', c: '-' } });
  if (o.sort !== null)
    sortRowsDescending(t, {
      first: 2,
      last: 2 + dataRows - 1,
      col: sortColumn(nodes, { sort: o.sort, strict: o.strict }),
    });
  return displayTable(t, { screenWidth: o.screenWidth, showZero: o.showZero });
}

/** The -p output for processes in ascending PID order (as numastat sorts them). */
export function renderNumastatProcesses(
  procs: readonly ProcessMemoryInfo[],
  nodes: readonly number[],
  o: ProcessTableOptions,
): string {
  const perProcess = o.verbose || procs.length === 1;
  const dataRows = perProcess ? CATEGORIES.length : procs.length;
  const t = setup(nodes, dataRows, o);
  let out = '';
  if (perProcess)
    CATEGORIES.forEach(([, label], i) => setCell(t, { row: 2 + i, col: 0, cell: { t: 'str', s: label } }));
  else {
    setCell(t, { row: 0, col: 0, cell: { t: 'str', s: 'PID' } });
    setCell(t, { row: 1, col: 0, cell: { t: 'rep', c: '-' } });
    out += '\nPer-node process memory usage (in MBs)\n';
  }
  procs.forEach((p, i) => {
    if (perProcess) {
      out += `\nPer-node process memory usage (in MBs) for PID ${p.pid} (${p.comm})\n`;
      if (i > 0) zeroData(t);
      if (p.memory.kind !== 'ok') {
        out += `${NO_PERMISSION}: cannot read /proc/${p.pid}/numa_maps (another user's process: run as root)\n`;
        return;
      }
      addProcess(t, p, nodes, (cat) => 2 + cat);
      out += show(t, nodes, dataRows, o);
      return;
    }
    // numastat formats "PID (name)" into a 64-byte buffer.
    setCell(t, { row: 2 + i, col: 0, cell: { t: 'str', s: `${p.pid} (${p.comm})`.slice(0, 63) } });
    if (p.memory.kind !== 'ok') markNoPermission(t, 2 + i);
    else addProcess(t, p, nodes, () => 2 + i);
    if (i === procs.length - 1) out += show(t, nodes, dataRows, o);
  });
  return out;
}
