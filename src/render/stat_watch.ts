// `numakit stat --watch SEC`: per interval and node, the numastat counters as rates (pages/s)
// and free memory, one line per interval like vmstat; or one JSON object per line. Where the
// kernel counts memory tiering (nodeN/vmstat pgpromote_success, pgdemote_*), pages promoted
// into and demoted out of each node per second too. Pure.
import { DEMOTED, PROMOTED } from '../model/tiering_counters.js';

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
const TIER_COLS: readonly [string, string][] = [
  [PROMOTED, 'promo/s'],
  [DEMOTED, 'demo/s'],
];
const W = 9;

/** Whether any node of the point has the tiering counters (then they get columns). */
export function hasTiering(p: WatchPoint): boolean {
  return [...p.nodes.values()].some((n) => n.counters[PROMOTED] !== undefined || n.counters[DEMOTED] !== undefined);
}

export interface WatchRates {
  readonly intervalSeconds: number;
  readonly nodes: Record<string, Record<string, number | null>>;
}

/**
 * Decimals a rate over `secs` can carry: a counter moves by whole pages, so one page in the
 * interval is 1/secs per second (1 s: 1, whole numbers; 5 s: 0.2, one decimal; 100 s: 0.01, two):
 * the last digit shown is the power of ten nearest that step. More digits are the clock's noise,
 * not the counters' (27233.244708378894).
 */
export function rateDecimals(secs: number): number {
  return secs <= 1 ? 0 : Math.max(0, Math.round(Math.log10(secs)));
}

const roundTo = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

export function watchRates(prev: WatchPoint, cur: WatchPoint): WatchRates {
  const secs = roundTo((cur.atMs - prev.atMs) / 1000, 3);
  const d = rateDecimals(secs);
  const nodes: WatchRates['nodes'] = {};
  for (const [n, c] of cur.nodes) {
    const p = prev.nodes.get(n);
    const row: Record<string, number | null> = {};
    const tiers = c.counters[PROMOTED] !== undefined || c.counters[DEMOTED] !== undefined ? TIER_COLS : [];
    for (const [k] of [...COLS, ...tiers]) {
      const a = p?.counters[k];
      const b = c.counters[k];
      row[k] = a === undefined || b === undefined || secs <= 0 ? null : roundTo(Math.max(0, b - a) / secs, d);
    }
    row['freeBytes'] = c.freeBytes;
    nodes[String(n)] = row;
  }
  return { intervalSeconds: secs, nodes };
}

const cell = (s: string) => s.padStart(W);

export function renderWatchHeader(nodes: readonly number[], o: { tiering?: boolean } = {}): string {
  const cols = o.tiering ? [...COLS, ...TIER_COLS] : COLS;
  const group = (n: number) => `node${n}`.padEnd(W * (cols.length + 1));
  const names = [...cols.map(([, h]) => cell(h)), cell('freeMB')].join('');
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
    const tiers = TIER_COLS.some(([k]) => k in row) ? TIER_COLS : [];
    return ` ${[...[...COLS, ...tiers].map(([k]) => fmt(row[k])), fmt(free === null || free === undefined ? null : free / 1048576)].join('')}`;
  });
  return `${time.padEnd(9)}${parts.join('')}\n`;
}

/** ISO 8601 local time with its UTC offset, to the second: "2026-12-02T01:35:40+01:00". */
export function isoLocalTime(d: Date): string {
  const off = -d.getTimezoneOffset();
  const two = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const local = new Date(d.getTime() + off * 60_000).toISOString().slice(0, 19);
  return `${local}${off < 0 ? '-' : '+'}${two(off / 60)}:${two(Math.abs(off) % 60)}`;
}

/** One JSON line; `time` as isoLocalTime gives it. */
export function renderWatchJson(r: WatchRates, time: string): string {
  return `${JSON.stringify({ time, ...r })}\n`;
}
