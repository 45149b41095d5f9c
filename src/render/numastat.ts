// numastat's system tables: the default per-node counters in pages (no options), -n (the same
// in MB with a Total column) and -m (per-node meminfo in MB). `strict` gives numastat 2.0.x's
// exact output, including its fixed row set and its "Token X not in hash table." lines for
// meminfo fields it does not know; without it every field the kernel reports is shown and
// unknown ones are added at the end instead of warned about. Without strict, huge page rows
// are the pools of every page size (numastat 2.0.16 multiplies the counts by the default size
// only, so strict does too). Pure.
import type { NodeStat } from '../model/stat.js';
import {
  autoWidth,
  displayTable,
  newTable,
  setCell,
  addTo,
  sortRowsDescending,
  type NumastatTable,
} from './numastat_table.js';

const MiB = 1024 * 1024;

export const COUNTER_ROWS: readonly [string, string][] = [
  ['numa_hit', 'Numa_Hit'],
  ['numa_miss', 'Numa_Miss'],
  ['numa_foreign', 'Numa_Foreign'],
  ['interleave_hit', 'Interleave_Hit'],
  ['local_node', 'Local_Node'],
  ['other_node', 'Other_Node'],
];

/** numastat 2.0.16's meminfo rows, in its order. */
export const MEMINFO_ROWS: readonly string[] = [
  'MemTotal',
  'MemFree',
  'MemUsed',
  'HighTotal',
  'HighFree',
  'LowTotal',
  'LowFree',
  'Active',
  'Inactive',
  'Active(anon)',
  'Inactive(anon)',
  'Active(file)',
  'Inactive(file)',
  'Unevictable',
  'Mlocked',
  'Dirty',
  'Writeback',
  'FilePages',
  'Mapped',
  'AnonPages',
  'Shmem',
  'KernelStack',
  'PageTables',
  'NFS_Unstable',
  'Bounce',
  'WritebackTmp',
  'Slab',
  'SReclaimable',
  'SUnreclaim',
  'AnonHugePages',
  'ShmemHugePages',
  'ShmemPmdMapped',
  'HugePages_Total',
  'HugePages_Free',
  'HugePages_Surp',
  'KReclaimable',
];

export interface SystemTableOptions {
  readonly screenWidth: number;
  /** False with -z. */
  readonly showZero: boolean;
  /** -c: minimal widths, no decimals. */
  readonly compress: boolean;
  /** -s[NODE]: null = no sort; -1 = by Total; else the NODE argument. */
  readonly sort: number | null;
  /** numastat 2.0.x's exact output (fixed rows, its quirks). */
  readonly strict: boolean;
}

/** The data column -s sorts by. numastat indexes its node list with NODE and adds the id it
 * finds there to the first data column: right for nodes 0..N-1, shifted with sparse ids. */
export function sortColumn(nodes: readonly number[], o: { sort: number; strict: boolean }): number {
  const { sort, strict } = o;
  const total = 1 + nodes.length;
  if (strict) return sort < 0 || sort >= nodes.length ? total : 1 + nodes[sort]!;
  const i = nodes.indexOf(sort);
  return i < 0 ? total : 1 + i;
}

interface Values {
  /** Row key -> per-node values (index like nodes), in MB or pages. */
  readonly rows: Map<string, (number | undefined)[]>;
  /** Lines printed before the table (strict: unknown tokens). */
  readonly warnings: string[];
}

function layout(t: NumastatTable, nodes: readonly number[], o: SystemTableOptions, compat: boolean): void {
  t.width[0] = 16;
  t.align[0] = 'left';
  const headers = [...nodes.map((n) => (compat ? `node${n}` : `Node ${n}`)), 'Total'];
  headers.forEach((h, i) => {
    const col = 1 + i;
    if (compat && i === nodes.length) return; // numastat leaves the Total column of the compat table unset (width 0)
    setCell(t, { row: 0, col, cell: { t: 'str', s: h } });
    if (!compat) {
      setCell(t, { row: 1, col, cell: { t: 'rep', c: '-' } });
      t.places[col] = o.compress ? 0 : 2;
    }
    t.width[col] = 16;
    t.align[col] = 'right';
  });
}

function fill(
  t: NumastatTable,
  labels: string[],
  keys: string[],
  v: Values,
  o: SystemTableOptions,
  nodes: readonly number[],
): string {
  const h = t.headerRows;
  labels.forEach((l, i) => setCell(t, { row: h + i, col: 0, cell: { t: 'str', s: l } }));
  keys.forEach((k, i) => {
    const per = v.rows.get(k);
    per?.forEach((val, n) => {
      if (val === undefined) return;
      setCell(t, { row: h + i, col: 1 + n, cell: { t: 'num', v: val } });
      addTo(t, { row: h + i, col: 1 + nodes.length, v: val });
    });
  });
  if (o.compress) for (let c = 0; c < t.nCols; c++) autoWidth(t, { col: c, min: 4, max: 16 });
  if (o.sort !== null)
    sortRowsDescending(t, {
      first: h,
      last: h + keys.length - 1,
      col: sortColumn(nodes, { sort: o.sort, strict: o.strict }),
    });
  return v.warnings.join('') + displayTable(t, { screenWidth: o.screenWidth, showZero: o.showZero });
}

function counterValues(s: NodeStat, unit: number): Values {
  const rows = new Map<string, (number | undefined)[]>();
  const warnings: string[] = [];
  const known = new Set(COUNTER_ROWS.map(([k]) => k));
  s.numastat.forEach((c, n) => {
    for (const [k, val] of Object.entries(c)) {
      if (!known.has(k)) {
        warnings.push(`Token ${k} not in hash table.\n`);
        continue;
      }
      if (!rows.has(k)) rows.set(k, new Array(s.nodes.length).fill(undefined));
      rows.get(k)![n] = (val * unit) / (unit === 1 ? 1 : MiB);
    }
  });
  return { rows, warnings };
}

/** numastat with no options: counters in pages, "nodeN" headings, no Total. */
export function renderNumastatCompat(s: NodeStat, o: Pick<SystemTableOptions, 'screenWidth'>): string {
  const opts: SystemTableOptions = {
    screenWidth: o.screenWidth,
    showZero: true,
    compress: false,
    sort: null,
    strict: true,
  };
  const t = newTable(1, 1, COUNTER_ROWS.length, s.nodes.length + 1);
  layout(t, s.nodes, opts, true);
  const keys = COUNTER_ROWS.map(([k]) => k);
  return fill(t, keys, keys, counterValues(s, 1), opts, s.nodes);
}

/** numastat -n: the counters in MB with a Total column. */
export function renderNumastatCounters(s: NodeStat, o: SystemTableOptions): string {
  const t = newTable(2, 1, COUNTER_ROWS.length, s.nodes.length + 1);
  layout(t, s.nodes, o, false);
  const v = counterValues(s, s.pageSize);
  return (
    '\nPer-node numastat info (in MBs):\n' +
    fill(
      t,
      COUNTER_ROWS.map(([, l]) => l),
      COUNTER_ROWS.map(([k]) => k),
      v,
      o,
      s.nodes,
    )
  );
}

const HUGE_ROWS: Record<string, 'totalBytes' | 'freeBytes' | 'surplusBytes'> = {
  HugePages_Total: 'totalBytes',
  HugePages_Free: 'freeBytes',
  HugePages_Surp: 'surplusBytes',
};

/** A HugePages_* row: strict (numastat) multiplies the count of default-size pages by the
 * default size, so pools of other sizes (1 GiB next to 2 MiB) are missed; numakit sums every pool. */
function meminfoValue(
  s: NodeStat,
  n: number,
  key: string,
  raw: number,
  o: { strict: boolean; defaultHugeBytes: number },
): number {
  const pool = HUGE_ROWS[key];
  if (pool === undefined) return raw / MiB;
  const huge = s.huge[n];
  return huge && !o.strict ? huge[pool] / MiB : (raw * o.defaultHugeBytes) / MiB;
}

function meminfoValues(
  s: NodeStat,
  o: SystemTableOptions & { defaultHugeBytes: number },
): { v: Values; keys: string[] } {
  const rows = new Map<string, (number | undefined)[]>();
  const warnings: string[] = [];
  const keys = [...MEMINFO_ROWS];
  const known = new Set(MEMINFO_ROWS);
  s.meminfo.forEach((m, n) => {
    for (const [k, raw] of Object.entries(m ?? {})) {
      if (!known.has(k)) {
        if (o.strict) {
          warnings.push(`Token ${k} not in hash table.\n`);
          continue;
        }
        known.add(k);
        keys.push(k);
      }
      if (!rows.has(k)) rows.set(k, new Array(s.nodes.length).fill(undefined));
      rows.get(k)![n] = meminfoValue(s, n, k, raw, o);
    }
  });
  return { v: { rows, warnings }, keys };
}

/** numastat -m: per-node meminfo in MB. `defaultHugeBytes` is /proc/meminfo Hugepagesize. */
export function renderNumastatMeminfo(s: NodeStat, o: SystemTableOptions & { defaultHugeBytes: number }): string {
  const { v, keys } = meminfoValues(s, o);
  const t = newTable(2, 1, keys.length, s.nodes.length + 1);
  layout(t, s.nodes, o, false);
  return '\nPer-node system memory usage (in MBs):\n' + fill(t, keys, keys, v, o, s.nodes);
}
