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

// A cell's kind. Cells are kept by kind in flat arrays, not as an object each: a table of 2,000
// processes on 32 nodes has 68,000 cells, and objects whose number changed from 0 (a small
// integer) to a fraction cost V8 a migration each on their next read (most of -p's render time).
const NULL = 0;
const NUM = 1;
const STR = 2;
const REP = 3;

export interface NumastatTable {
  readonly headerRows: number;
  readonly headerCols: number;
  readonly nRows: number;
  readonly nCols: number;
  /** Per cell (row * nCols + col): NULL, NUM, STR or REP. */
  readonly kind: Uint8Array;
  /** A NUM cell's value. */
  readonly num: Float64Array;
  /** A STR cell's text, a REP cell's repeated character. */
  readonly text: (string | undefined)[];
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
    kind: new Uint8Array(nRows * nCols),
    num: new Float64Array(nRows * nCols),
    text: new Array<string | undefined>(nRows * nCols).fill(undefined),
    width: new Array<number>(nCols).fill(0),
    places: new Array<number>(nCols).fill(0),
    align: new Array(nCols).fill('center'),
    order: Array.from({ length: nRows }, (_, i) => i),
    rowFlags: new Array<number>(nRows).fill(0),
    colFlags: new Array<number>(nCols).fill(0),
  };
}

export function setCell(t: NumastatTable, at: { row: number; col: number; cell: Cell }): void {
  const i = at.row * t.nCols + at.col;
  const { cell } = at;
  switch (cell.t) {
    case 'null':
      t.kind[i] = NULL;
      break;
    case 'num':
      t.kind[i] = NUM;
      t.num[i] = cell.v;
      break;
    case 'str':
      t.kind[i] = STR;
      t.text[i] = cell.s;
      break;
    case 'rep':
      t.kind[i] = REP;
      t.text[i] = cell.c;
      break;
  }
}

/** Adds to a numeric cell (any other cell counts as 0 and becomes a number). */
export function addTo(t: NumastatTable, at: { row: number; col: number; v: number }): void {
  const i = at.row * t.nCols + at.col;
  if (t.kind[i] === NUM) t.num[i]! += at.v;
  else {
    t.kind[i] = NUM;
    t.num[i] = 0 + at.v;
  }
}

/** Every data cell becomes the number 0 (numastat's zero_table_data). */
export function zeroData(t: NumastatTable): void {
  for (let r = t.headerRows; r < t.nRows; r++)
    for (let c = t.headerCols, i = r * t.nCols + c; c < t.nCols; c++, i++) {
      t.kind[i] = NUM;
      t.num[i] = 0;
    }
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

/** The text of cell `i` (row * nCols + col), cut at the width. */
function fmt(t: NumastatTable, i: number, width: number, places: number): string {
  let s: string;
  switch (t.kind[i]) {
    case NUM:
      s = cFixed(t.num[i]!, places);
      break;
    case STR:
      s = t.text[i]!;
      break;
    case REP:
      s = t.text[i]!.repeat(Math.max(0, width - 1));
      break;
    default:
      s = '';
  }
  return s.slice(0, width);
}

/** numastat's auto_set_col_width: widest formatted cell (repeats excluded) + 1, within bounds. */
export function autoWidth(t: NumastatTable, o: { col: number; min: number; max: number }): void {
  const { col, min, max } = o;
  let w = min;
  for (let r = 0, i = col; r < t.nRows; r++, i += t.nCols)
    if (t.kind[i] !== REP) w = Math.max(w, fmt(t, i, max, t.places[col]!).length);
  t.width[col] = Math.min(w + 1, max);
}

function justified(t: NumastatTable, i: number, col: number): string {
  return aligned(t, col, fmt(t, i, t.width[col]!, t.places[col]!));
}

/** Text padded to its column's width as the column is justified. */
function aligned(t: NumastatTable, col: number, p: string): string {
  const w = t.width[col]!;
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
    const i = r * t.nCols + col;
    return t.kind[i] === NUM ? t.num[i]! : 0;
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
    for (let c = t.headerCols, i = r * t.nCols + c; c < t.nCols; c++, i++) {
      const k = t.kind[i];
      if (k === NULL || k === REP) continue;
      seen = true;
      t.rowFlags[r]! |= SEEN;
      t.colFlags[c]! |= SEEN;
      if (k === STR || t.num[i] !== 0) {
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

/** The number 0 as column `col` shows it. */
function zeroText(t: NumastatTable, col: number): string {
  return aligned(t, col, cFixed(0, t.places[col]!).slice(0, t.width[col]!));
}

/** The table as numastat's display_table prints it (unseen rows/columns are always hidden). */
export function displayTable(t: NumastatTable, o: DisplayOptions): string {
  const { seen, nonZero } = markData(t);
  if (!seen) return 'Table has no data.\n';
  if (!nonZero && !o.showZero) return 'Table has no non-zero data.\n';
  // Which rows and columns show is decided once, not per cell (2,000 rows x 33 columns for -p java).
  const shown = (flags: number) =>
    (flags & ALWAYS) !== 0 || ((flags & SEEN) !== 0 && (o.showZero || (flags & NONZERO) !== 0));
  const colShown = t.colFlags.map(shown);
  const rows = t.order.filter((r) => r < t.headerRows || shown(t.rowFlags[r]!));
  const lines: string[] = [];
  let col = -1;
  let dataCol = t.headerCols;
  while (dataCol < t.nCols) {
    if (!colShown[dataCol]) {
      dataCol++;
      continue;
    }
    if (col > 0) lines.push('');
    // The columns of this section: those shown from dataCol on, while the line fits.
    const cols: number[] = [];
    let used = 0;
    for (col = 0; col < t.headerCols; col++) {
      cols.push(col);
      used += t.width[col]!;
    }
    for (col = dataCol; ; ) {
      if (colShown[col]) {
        cols.push(col);
        used += t.width[col]!;
      }
      col++;
      if (col >= t.nCols || used + t.width[col]! > o.screenWidth) break;
    }
    // Most cells of a table of many processes are 0 (a process has memory on a few of 32 nodes):
    // each column's 0 is formatted once.
    const zeros = cols.map((c) => zeroText(t, c));
    for (const row of rows) {
      const at = row * t.nCols;
      let line = '';
      for (let k = 0; k < cols.length; k++) {
        const i = at + cols[k]!;
        line += t.kind[i] === NUM && t.num[i] === 0 ? zeros[k]! : justified(t, i, cols[k]!);
      }
      lines.push(line);
    }
    dataCol = col;
  }
  lines.push('');
  return lines.join('\n');
}
