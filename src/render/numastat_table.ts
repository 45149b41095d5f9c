// numastat 2.0.x's table engine, reproduced so that `numakit stat --numastat` prints the same
// bytes: fixed or auto column widths (gutter of one space), left/right justification, rows of
// repeated '-', hiding of unseen or all-zero rows and columns (-z), selection-sort of rows
// (-s), and folding of columns into sections when a line would exceed the screen width.
// Reference: numastat.c in github.com/numactl/numactl (display_table, fmt_cell_data). Pure.

export type Cell =
  | { readonly t: 'null' }
  | { readonly t: 'num'; v: number }
  | { readonly t: 'str'; readonly s: string }
  | { readonly t: 'rep'; readonly c: string };

const SEEN = 1;
const NONZERO = 2;
const ALWAYS = 4;
const NULL_CELL: Cell = { t: 'null' };

export interface NumastatTable {
  readonly headerRows: number;
  readonly headerCols: number;
  readonly nRows: number;
  readonly nCols: number;
  readonly cells: Cell[][];
  readonly width: number[];
  readonly places: number[];
  readonly align: ('left' | 'right' | 'center')[];
  /** Display order of rows (sorting permutes it; numastat keeps it across -v tables). */
  readonly order: number[];
  readonly rowFlags: number[];
  readonly colFlags: number[];
}

export function newTable(headerRows: number, headerCols: number, dataRows: number, dataCols: number): NumastatTable {
  const nRows = headerRows + dataRows;
  const nCols = headerCols + dataCols;
  return {
    headerRows,
    headerCols,
    nRows,
    nCols,
    cells: Array.from({ length: nRows }, () => new Array<Cell>(nCols).fill(NULL_CELL)),
    width: new Array<number>(nCols).fill(0),
    places: new Array<number>(nCols).fill(0),
    align: new Array(nCols).fill('center'),
    order: Array.from({ length: nRows }, (_, i) => i),
    rowFlags: new Array<number>(nRows).fill(0),
    colFlags: new Array<number>(nCols).fill(0),
  };
}

export function setCell(t: NumastatTable, at: { row: number; col: number; cell: Cell }): void {
  t.cells[at.row]![at.col] = at.cell;
}

/** Adds to a numeric cell (a null cell counts as 0). */
export function addTo(t: NumastatTable, at: { row: number; col: number; v: number }): void {
  const c = t.cells[at.row]![at.col]!;
  t.cells[at.row]![at.col] = { t: 'num', v: (c.t === 'num' ? c.v : 0) + at.v };
}

/** Every data cell becomes the number 0 (numastat's zero_table_data). */
export function zeroData(t: NumastatTable): void {
  for (let r = t.headerRows; r < t.nRows; r++)
    for (let c = t.headerCols; c < t.nCols; c++) t.cells[r]![c] = { t: 'num', v: 0 };
}

export function markRowAlwaysShown(t: NumastatTable, row: number): void {
  t.rowFlags[row]! |= ALWAYS;
}

/** printf("%.*f"): like toFixed, except that exact ties round to even as glibc does. */
export function cFixed(v: number, places: number): string {
  const scale = 10 ** places;
  const s = v * scale;
  const fl = Math.floor(s);
  if (s - fl !== 0.5 || !Number.isSafeInteger(fl)) return v.toFixed(places);
  const n = fl % 2 === 0 ? fl : fl + 1;
  const neg = n < 0;
  const digits = String(Math.abs(n)).padStart(places + 1, '0');
  const body = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return (neg ? '-' : '') + body;
}

function fmt(cell: Cell, width: number, places: number): string {
  let s: string;
  switch (cell.t) {
    case 'null':
      s = '';
      break;
    case 'num':
      s = cFixed(cell.v, places);
      break;
    case 'str':
      s = cell.s;
      break;
    case 'rep':
      s = cell.c.repeat(Math.max(0, width - 1));
      break;
  }
  return s.slice(0, width);
}

/** numastat's auto_set_col_width: widest formatted cell (repeats excluded) + 1, within bounds. */
export function autoWidth(t: NumastatTable, o: { col: number; min: number; max: number }): void {
  const { col, min, max } = o;
  let w = min;
  for (let r = 0; r < t.nRows; r++) {
    const c = t.cells[r]![col]!;
    if (c.t !== 'rep') w = Math.max(w, fmt(c, max, t.places[col]!).length);
  }
  t.width[col] = Math.min(w + 1, max);
}

function justified(t: NumastatTable, row: number, col: number): string {
  const w = t.width[col]!;
  const p = fmt(t.cells[row]![col]!, w, t.places[col]!);
  switch (t.align[col]) {
    case 'left':
      return p.padEnd(w);
    case 'right':
      return p.padStart(w);
    default:
      return (' '.repeat(Math.floor((w - p.length + 1) / 2)) + p).padEnd(w);
  }
}

/** Descending selection sort of rows [first, last] by a column, as numastat does (unstable). */
export function sortRowsDescending(t: NumastatTable, o: { first: number; last: number; col: number }): void {
  const { first, last, col } = o;
  const val = (r: number) => {
    const c = t.cells[r]![col]!;
    return c.t === 'num' ? c.v : 0;
  };
  for (let i = first; i <= last; i++) {
    let big = i;
    for (let j = i + 1; j <= last; j++) if (val(t.order[big]!) < val(t.order[j]!)) big = j;
    if (big !== i) [t.order[i], t.order[big]] = [t.order[big]!, t.order[i]!];
  }
}

function markData(t: NumastatTable): { seen: boolean; nonZero: boolean } {
  let seen = false;
  let nonZero = false;
  for (let r = t.headerRows; r < t.nRows; r++) {
    for (let c = t.headerCols; c < t.nCols; c++) {
      const cell = t.cells[r]![c]!;
      if (cell.t === 'null' || cell.t === 'rep') continue;
      seen = true;
      t.rowFlags[r]! |= SEEN;
      t.colFlags[c]! |= SEEN;
      if (cell.t === 'str' || cell.v !== 0) {
        nonZero = true;
        t.rowFlags[r]! |= NONZERO;
        t.colFlags[c]! |= NONZERO;
      }
    }
  }
  return { seen, nonZero };
}

export interface DisplayOptions {
  readonly screenWidth: number;
  /** False with -z: rows and columns that are all zero are hidden. */
  readonly showZero: boolean;
}

/** The table as numastat's display_table prints it (unseen rows/columns are always hidden). */
export function displayTable(t: NumastatTable, o: DisplayOptions): string {
  const { seen, nonZero } = markData(t);
  if (!seen) return 'Table has no data.\n';
  if (!nonZero && !o.showZero) return 'Table has no non-zero data.\n';
  const colShown = (c: number) =>
    (t.colFlags[c]! & ALWAYS) !== 0 ||
    ((t.colFlags[c]! & SEEN) !== 0 && (o.showZero || (t.colFlags[c]! & NONZERO) !== 0));
  const rowShown = (r: number) =>
    r < t.headerRows ||
    (t.rowFlags[r]! & ALWAYS) !== 0 ||
    ((t.rowFlags[r]! & SEEN) !== 0 && (o.showZero || (t.rowFlags[r]! & NONZERO) !== 0));
  let out = '';
  let col = -1;
  let dataCol = t.headerCols;
  while (dataCol < t.nCols) {
    if (!colShown(dataCol)) {
      dataCol++;
      continue;
    }
    if (col > 0) out += '\n';
    for (const row of t.order) {
      if (!rowShown(row)) continue;
      let line = '';
      let used = 0;
      for (col = 0; col < t.headerCols; col++) {
        line += justified(t, row, col);
        used += t.width[col]!;
      }
      for (col = dataCol; ; ) {
        if (colShown(col)) {
          line += justified(t, row, col);
          used += t.width[col]!;
        }
        col++;
        if (col >= t.nCols || used + t.width[col]! > o.screenWidth) break;
      }
      out += `${line}\n`;
    }
    dataCol = col;
  }
  return out;
}
