// A node x node matrix as text, MLC style: rows are CPU nodes, columns memory nodes, each cell
// the figure and, with more than one column, its ratio to the row's local cell. Pure.
import { renderTable } from '../units.js';

export interface MatrixCell {
  readonly value: number;
  /** The buffer was not wholly on the column's node: the cell is marked '*'. */
  readonly marked: boolean;
}

export interface MatrixSpec {
  readonly rows: readonly number[];
  readonly cols: readonly number[];
  readonly cell: (row: number, col: number) => MatrixCell | undefined;
  readonly digits: number;
  /** Row labels beyond "node N", e.g. the thread count. */
  readonly rowLabel?: (row: number) => string;
}

export function renderMatrix(m: MatrixSpec): string {
  const ratios = m.cols.length > 1;
  const header = ['', ...m.cols.map((c) => `node ${c}`)];
  const body = m.rows.map((r) => {
    const local = m.cell(r, r);
    return [
      m.rowLabel?.(r) ?? `node ${r}`,
      ...m.cols.map((c) => {
        const x = m.cell(r, c);
        if (x === undefined) return '-';
        const v = `${x.value.toFixed(m.digits)}${x.marked ? '*' : ''}`;
        return ratios && local !== undefined ? `${v} (${(x.value / local.value).toFixed(2)}x)` : v;
      }),
    ];
  });
  return `${renderTable([header, ...body], { indent: '  ' })}\n`;
}
