// Small inline SVG charts for the bench reports: a heatmap of a node matrix, strip-and-box
// plots per variant, stacked bars, and intervals against 1. Plain strings, no script. Pure.

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const num = (x: number) => (Number.isFinite(x) ? Number(x.toFixed(2)) : 0);

/** The <svg> element's opening, its accessible title, and the title drawn at the top left. */
function chartOpen(width: number, height: number, title: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title><text x="4" y="16" class="t">${esc(title)}</text>`;
}

/** White to a deep colour by t in [0, 1]; `reverse` for figures where low is good (latency). */
export function heat(t: number, reverse = false): string {
  const u = Math.max(0, Math.min(1, reverse ? 1 - t : t));
  const lerp = (a: number, b: number) => Math.round(a + (b - a) * u);
  return `rgb(${lerp(247, 8)},${lerp(251, 81)},${lerp(255, 156)})`;
}

export interface HeatCell {
  readonly label: string;
  readonly value: number | null;
  readonly marked: boolean;
}

/** rows x cols cells; colour by value between the matrix's min and max. */
export function heatmap(
  title: string,
  rows: readonly string[],
  cols: readonly string[],
  cells: readonly (readonly HeatCell[])[],
  opts: { lowIsGood?: boolean } = {},
): string {
  const cw = 110;
  const ch = 44;
  const left = 90;
  const top = 46;
  const vals = cells
    .flat()
    .map((c) => c.value)
    .filter((v): v is number => v !== null);
  const lo = Math.min(...vals);
  const hi = Math.max(...vals);
  const w = left + cw * cols.length + 10;
  const h = top + ch * rows.length + 10;
  let s = chartOpen(w, h, title);
  cols.forEach(
    (c, j) =>
      (s += `<text x="${left + cw * j + cw / 2}" y="${top - 8}" text-anchor="middle" class="l">${esc(c)}</text>`),
  );
  rows.forEach((r, i) => {
    s += `<text x="${left - 8}" y="${top + ch * i + ch / 2 + 4}" text-anchor="end" class="l">${esc(r)}</text>`;
    cells[i]!.forEach((c, j) => {
      const t = c.value === null || hi === lo ? 0.5 : (c.value - lo) / (hi - lo);
      const fill = c.value === null ? '#eee' : heat(t, opts.lowIsGood);
      const dark = c.value !== null && (opts.lowIsGood ? 1 - t : t) > 0.55;
      s += `<rect x="${left + cw * j}" y="${top + ch * i}" width="${cw - 2}" height="${ch - 2}" fill="${fill}"${c.marked ? ' stroke="#d00" stroke-width="2"' : ''}/>`;
      s += `<text x="${left + cw * j + cw / 2 - 1}" y="${top + ch * i + ch / 2 + 4}" text-anchor="middle" class="v" fill="${dark ? '#fff' : '#111'}">${esc(c.label)}${c.marked ? '*' : ''}</text>`;
    });
  });
  return `${s}</svg>`;
}

export interface Group {
  readonly name: string;
  readonly values: readonly number[];
}

/** One row per group: every value as a dot, the box from quartiles and the median line. */
export function stripBox(title: string, groups: readonly Group[], unit: string): string {
  const all = groups.flatMap((g) => g.values);
  // The axis spans the runs (with a margin), not from 0: the spread within a variant must show.
  const span = Math.max(...all, 1e-9) - Math.min(...all, Math.max(...all, 1e-9));
  const lo = Math.max(0, Math.min(...all) - Math.max(span * 0.1, Math.abs(Math.min(...all)) * 0.02));
  const hi = Math.max(...all, 1e-9) + Math.max(span * 0.1, Math.abs(Math.max(...all)) * 0.02);
  const left = 120;
  const width = 460;
  const rh = 34;
  const x = (v: number) => num(left + ((v - lo) / (hi - lo)) * width);
  const h = 40 + rh * groups.length + 24;
  let s = chartOpen(left + width + 30, h, title);
  groups.forEach((g, i) => {
    const y = 40 + rh * i;
    const sorted = [...g.values].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))] ?? 0;
    s += `<text x="${left - 8}" y="${y + 14}" text-anchor="end" class="l">${esc(g.name)}</text>`;
    if (sorted.length > 0) {
      s += `<rect x="${x(q(0.25))}" y="${y + 2}" width="${num(Math.max(1, x(q(0.75)) - x(q(0.25))))}" height="20" fill="#dbe8f6" stroke="#4a78b0"/>`;
      s += `<line x1="${x(q(0.5))}" x2="${x(q(0.5))}" y1="${y}" y2="${y + 24}" stroke="#08519c" stroke-width="3"/>`;
    }
    for (const v of g.values) s += `<circle cx="${x(v)}" cy="${y + 12}" r="3.5" fill="#d95f02" fill-opacity="0.8"/>`;
  });
  const ya = 40 + rh * groups.length;
  s += `<line x1="${left}" x2="${left + width}" y1="${ya}" y2="${ya}" stroke="#888"/>`;
  for (const t of [lo, (lo + hi) / 2, hi])
    s += `<text x="${x(t)}" y="${ya + 16}" text-anchor="middle" class="l">${esc(fmt(t))}${unit === '' ? '' : ` ${esc(unit)}`}</text>`;
  return `${s}</svg>`;
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}

/** Stacked horizontal bars: each item's parts (e.g. user and system CPU seconds). */
export function stackedBars(
  title: string,
  items: readonly { name: string; parts: readonly number[] }[],
  partNames: readonly string[],
  unit: string,
): string {
  const colours = ['#4a78b0', '#d95f02', '#7570b3'];
  const max = Math.max(1e-9, ...items.map((i) => i.parts.reduce((a, b) => a + b, 0)));
  const left = 120;
  const width = 400;
  const rh = 30;
  const h = 40 + rh * items.length + 30;
  let s = chartOpen(left + width + 120, h, title);
  items.forEach((it, i) => {
    const y = 36 + rh * i;
    let at = left;
    s += `<text x="${left - 8}" y="${y + 15}" text-anchor="end" class="l">${esc(it.name)}</text>`;
    it.parts.forEach((p, k) => {
      const w = num((p / max) * width);
      s += `<rect x="${num(at)}" y="${y}" width="${w}" height="20" fill="${colours[k % colours.length]}"/>`;
      at += w;
    });
    s += `<text x="${num(at) + 6}" y="${y + 15}" class="l">${esc(it.parts.map(fmt).join(' + '))} ${esc(unit)}</text>`;
  });
  const ly = 36 + rh * items.length + 14;
  partNames.forEach(
    (p, k) =>
      (s += `<rect x="${left + k * 110}" y="${ly - 10}" width="12" height="12" fill="${colours[k % colours.length]}"/><text x="${left + k * 110 + 16}" y="${ly}" class="l">${esc(p)}</text>`),
  );
  return `${s}</svg>`;
}

/** Each ratio as a point with its interval, against a line at 1 (> 1 is better). */
export function intervals(
  title: string,
  rows: readonly { name: string; value: number; low: number; high: number }[],
): string {
  const lo = Math.min(0.9, ...rows.map((r) => r.low)) * 0.97;
  const hi = Math.max(1.1, ...rows.map((r) => r.high)) * 1.03;
  const left = 120;
  const width = 420;
  const rh = 28;
  const x = (v: number) => num(left + ((v - lo) / (hi - lo)) * width);
  const h = 40 + rh * rows.length + 26;
  let s = chartOpen(left + width + 40, h, title);
  s += `<line x1="${x(1)}" x2="${x(1)}" y1="30" y2="${h - 22}" stroke="#888" stroke-dasharray="4 3"/>`;
  rows.forEach((r, i) => {
    const y = 44 + rh * i;
    const clear = r.low > 1 || r.high < 1;
    const c = !clear ? '#777' : r.value > 1 ? '#1a9850' : '#d73027';
    s += `<text x="${left - 8}" y="${y + 4}" text-anchor="end" class="l">${esc(r.name)}</text>`;
    s += `<line x1="${x(r.low)}" x2="${x(r.high)}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="3"/>`;
    s += `<circle cx="${x(r.value)}" cy="${y}" r="5" fill="${c}"/>`;
  });
  for (const t of [lo, 1, hi])
    s += `<text x="${x(t)}" y="${h - 6}" text-anchor="middle" class="l">${t.toFixed(2)}x</text>`;
  return `${s}</svg>`;
}
