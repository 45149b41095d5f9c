// Number formatting shared by the renderers. Pure.

const MiB = 1024 * 1024;

export { formatBytes, plural } from '../model/bytes.js';

/** Whole MiB, truncated like the kernel tools do (bytes >> 20). */
export function toMiB(bytes: number): number {
  return Math.floor(bytes / MiB);
}

export function pad(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  return align === 'left' ? s.padEnd(width) : s.padStart(width);
}

/** Renders rows as aligned columns; first row is the header. Numeric-looking cells align right. */
export function renderTable(rows: string[][], opts: { indent?: string } = {}): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  const numeric = (s: string) => /^-?[\d.,]+( ?[%KMGTPi]*B?)?$/.test(s);
  return rows
    .map(
      (r) =>
        (opts.indent ?? '') +
        r
          .map((c, i) => (i > 0 && numeric(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
    )
    .join('\n');
}
