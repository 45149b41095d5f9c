// `numakit stat --watch SEC`: per interval and node, the numastat counters as rates (pages/s)
// and free memory, one line per interval like vmstat; or one JSON object per line. Pure.

export interface WatchPoint {
  /** Node id -> counters (pages) and free memory (bytes). */
  readonly nodes: ReadonlyMap<number, { counters: Readonly<Record<string, number>>; freeBytes: number | null }>;
  /** Milliseconds (monotonic). */
  readonly atMs: number;
}

const COLS: readonly [string, string][] = [
  ['numa_hit', 'hit/s'],
  ['numa_miss', 'miss/s'],
  ['numa_foreign', 'frgn/s'],
  ['interleave_hit', 'intl/s'],
  ['local_node', 'local/s'],
  ['other_node', 'other/s'],
];
const W = 9;

export interface WatchRates {
  readonly intervalSeconds: number;
  readonly nodes: Record<string, Record<string, number | null>>;
}

export function watchRates(prev: WatchPoint, cur: WatchPoint): WatchRates {
  const secs = (cur.atMs - prev.atMs) / 1000;
  const nodes: WatchRates['nodes'] = {};
  for (const [n, c] of cur.nodes) {
    const p = prev.nodes.get(n);
    const row: Record<string, number | null> = {};
    for (const [k] of COLS) {
      const a = p?.counters[k];
      const b = c.counters[k];
      row[k] = a === undefined || b === undefined || secs <= 0 ? null : Math.max(0, b - a) / secs;
    }
    row['freeBytes'] = c.freeBytes;
    nodes[String(n)] = row;
  }
  return { intervalSeconds: secs, nodes };
}

const cell = (s: string) => s.padStart(W);

export function renderWatchHeader(nodes: readonly number[]): string {
  const group = (n: number) => `node${n}`.padEnd(W * (COLS.length + 1));
  const names = [...COLS.map(([, h]) => cell(h)), cell('freeMB')].join('');
  const groups = `${'time'.padEnd(9)}${nodes.map((n) => ` ${group(n)}`).join('')}`.trimEnd();
  const columns = `${' '.repeat(9)}${nodes.map(() => ` ${names}`).join('')}`;
  return `${groups}\n${columns}\n`;
}

/** One line; `time` as HH:MM:SS. */
export function renderWatchLine(r: WatchRates, time: string): string {
  const nodes = Object.keys(r.nodes).sort((a, b) => Number(a) - Number(b));
  const fmt = (v: number | null | undefined) => cell(v === null || v === undefined ? '-' : String(Math.round(v)));
  const parts = nodes.map((n) => {
    const row = r.nodes[n]!;
    const free = row['freeBytes'];
    return ` ${[...COLS.map(([k]) => fmt(row[k])), fmt(free === null || free === undefined ? null : free / 1048576)].join('')}`;
  });
  return `${time.padEnd(9)}${parts.join('')}\n`;
}

export function renderWatchJson(r: WatchRates, time: string): string {
  return `${JSON.stringify({ time, ...r })}\n`;
}
