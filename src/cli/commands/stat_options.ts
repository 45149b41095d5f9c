// The options of `numakit stat`: numastat's (-c -m -n -p -s[NODE] -v -V -z and bare PIDs or
// patterns, short only as in numastat) plus numakit's (--numastat --json --procs --top
// --window --watch --count), and which of them go together.
import { UsageError } from '../../model/errors.js';
import type { ParsedOptions } from '../options.js';
import { parseOptions } from '../parse_options.js';
import { MAX_WAIT_MS } from '../../model/timer_limit.js';

/** What --procs and --cgroup do unless told: rows shown, and seconds of CPU time sampled. */
const DEFAULT = { top: 20, windowSeconds: 1 } as const;
const NUMASTAT = 'numastat options';
export const STAT_OPTIONS = {
  c: { type: 'boolean', short: 'c', shortOnly: true, group: NUMASTAT, help: 'narrow columns, no decimals' },
  m: {
    type: 'boolean',
    short: 'm',
    shortOnly: true,
    group: NUMASTAT,
    help: 'per-node meminfo in MB (huge page rows count the pools of every page size)',
  },
  n: {
    type: 'boolean',
    short: 'n',
    shortOnly: true,
    group: NUMASTAT,
    help: 'the allocation counters in MB, with a Total column',
  },
  p: {
    type: 'string',
    short: 'p',
    shortOnly: true,
    multiple: true,
    value: 'PID|PATTERN',
    complete: 'pid',
    group: NUMASTAT,
    help: "memory per node of a process (Huge, Heap, Stack, Private, Total) from\n/proc/PID/numa_maps, with each mapping's page size; a PATTERN selects every\nprocess whose name or command line contains it; several processes: one row each",
  },
  s: {
    type: 'string',
    short: 's',
    shortOnly: true,
    value: '[NODE]',
    group: NUMASTAT,
    help: 'sort rows by the Total column, or by NODE (-s2: attached, as in numastat)',
  },
  v: { type: 'boolean', short: 'v', shortOnly: true, group: NUMASTAT, help: 'one table per process' },
  V: {
    type: 'boolean',
    short: 'V',
    shortOnly: true,
    group: NUMASTAT,
    help: 'print the version, as numastat -V does, and exit',
  },
  z: { type: 'boolean', short: 'z', shortOnly: true, group: NUMASTAT, help: 'hide rows and columns that are all zero' },
  numastat: {
    type: 'boolean',
    help: "exactly numastat 2.0.x's output for the same options (its widths, headings,\norder, warnings and its huge page arithmetic)",
  },
  json: { type: 'boolean', help: 'machine-readable (every mode; schemaVersion 1, docs/stat.md)' },
  procs: {
    type: 'boolean',
    help: 'every process with resident memory, most memory on nodes it does not run on\nfirst, with its LOCALITY: the share of its memory on the nodes where it spent\nCPU time during the window, weighted by that time (1 = all local, 0 = all remote),\nand its ACCESS locality: the share of its recent memory accesses that hit the\nnode each thread runs on, from the PMU where the CPU samples memory accesses\n(Intel PEBS, AMD IBS; over another window), else from NUMA-balancing faults\n(needs kernel.numa_balancing on); the note says why when neither (docs/stat.md)',
  },
  cgroup: {
    type: 'boolean',
    help: "cgroups by the remote memory of their processes: each one's memory per node\n(memory.numa_stat), the CPUs and memory nodes its cpuset allows, its locality;\nwith a cgroup PATH after it (/system.slice/x.service), that cgroup and its\nprocesses in full (cgroup v2 and v1)",
  },
  top: {
    type: 'string',
    value: 'N',
    help: `how many processes --procs (cgroups --cgroup) shows (default ${DEFAULT.top})`,
  },
  window: {
    type: 'string',
    value: 'SEC',
    help: `how long --procs or --cgroup samples CPU time (default ${DEFAULT.windowSeconds})`,
  },
  watch: {
    type: 'string',
    value: 'SEC',
    help: 'counters per second and free memory per node, one line every SEC seconds,\nuntil Ctrl-C; NDJSON with --json',
  },
  count: { type: 'string', value: 'N', help: 'with --watch: stop after N lines' },
} as const;

/** The declaration stat's parser and its help share. */
export const STAT_DECLARATION = {
  options: STAT_OPTIONS,
  positionals: {
    name: 'PID|PATTERN',
    max: Infinity,
    complete: 'pid',
    help: 'the same as -p PID|PATTERN, as numastat takes them',
  },
  conflicts: [['numastat', 'json']],
} as const;

export interface StatOptions {
  compress: boolean;
  meminfo: boolean;
  counters: boolean;
  specs: string[];
  /** null: no -s; -1: by Total; else the node argument. */
  sort: number | null;
  verbose: boolean;
  version: boolean;
  showZero: boolean;
  numastat: boolean;
  json: boolean;
  procs: boolean;
  /** --cgroup: every cgroup (cgroupPath null) or the one named after it. */
  cgroup: boolean;
  cgroupPath: string | null;
  top: number;
  windowSeconds: number;
  watch: number | null;
  count: number | null;
  /** No numastat option nor process: numastat's compatible default table. */
  compat: boolean;
  help: boolean;
}

function positiveNumber(v: string | undefined, flag: string, integer: boolean): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !(n > 0) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`stat: ${flag} needs a positive ${integer ? 'integer' : 'number'}, got '${v}'`);
  }
  if (!integer && n * 1000 > MAX_WAIT_MS)
    throw new UsageError(`stat: ${flag} '${v}': at most ${MAX_WAIT_MS / 1000} seconds (24 days)`);
  return n;
}

/** -s takes an optional attached node ("-s", "-s2"): getopt's "s::". A bare -s sorts by Total. */
function rewriteSort(args: string[]): string[] {
  const end = args.indexOf('--');
  return args.map((a, i) => ((end < 0 || i < end) && a === '-s' ? '-s-1' : a));
}

function sortNode(v: string | undefined): number | null {
  if (v === undefined) return null;
  if (v === '-1') return -1;
  if (!/^\d+$/.test(v)) throw new UsageError(`stat: -s${v}: expected a node number attached to -s (-s2)`);
  return Number(v);
}

/** Options of one mode used in another: each a usage error naming both. */
function checkModes(o: StatOptions, v: ParsedOptions<typeof STAT_OPTIONS>['values']): void {
  const numastatOpts = [
    v.c && '-c',
    v.m && '-m',
    v.n && '-n',
    v.p && '-p',
    v.s !== undefined && '-s',
    v.v && '-v',
    v.z && '-z',
  ].filter(Boolean);
  const firstNumastat = numastatOpts[0] ?? (o.specs.length > 0 ? `process '${o.specs[0]}'` : undefined);
  if (o.procs && (o.watch !== null || o.numastat))
    throw new UsageError(`stat: --procs and ${o.numastat ? '--numastat' : '--watch'} cannot be used together`);
  if (o.procs && firstNumastat !== undefined)
    throw new UsageError(
      `stat: --procs and ${firstNumastat} cannot be used together (--procs ranks every process by remote memory)`,
    );
  if (o.watch !== null && (firstNumastat !== undefined || o.numastat)) {
    throw new UsageError(
      `stat: --watch and ${firstNumastat ?? '--numastat'} cannot be used together (--watch shows the counters per second)`,
    );
  }
  if (o.cgroup && (o.procs || o.watch !== null || o.numastat || firstNumastat !== undefined))
    throw new UsageError(
      `stat: --cgroup and ${o.procs ? '--procs' : o.watch !== null ? '--watch' : o.numastat ? '--numastat' : firstNumastat} cannot be used together`,
    );
  if ((v.top !== undefined || v.window !== undefined) && !o.procs && !o.cgroup)
    throw new UsageError(`stat: ${v.top !== undefined ? '--top' : '--window'} goes with --procs or --cgroup`);
  if (v.count !== undefined && o.watch === null) throw new UsageError('stat: --count goes with --watch');
}

export function parseStatArgs(args: string[]): StatOptions {
  const {
    values: v,
    positionals,
    help,
  } = parseOptions(STAT_DECLARATION, rewriteSort(args), 'stat') as ParsedOptions<typeof STAT_OPTIONS>;
  const cgroup = v.cgroup === true;
  if (cgroup && positionals.length > 1) throw new UsageError('stat: --cgroup takes one cgroup PATH');
  if (cgroup && positionals.length === 1 && !positionals[0]!.startsWith('/'))
    throw new UsageError(`stat: --cgroup ${positionals[0]}: a cgroup path starts with / (/system.slice/x.service)`);
  const specs = [...(v.p ?? []), ...(cgroup ? [] : positionals)];
  const o: StatOptions = {
    compress: v.c === true,
    meminfo: v.m === true,
    counters: v.n === true,
    specs,
    sort: sortNode(v.s),
    verbose: v.v === true,
    version: v.V === true,
    showZero: v.z !== true,
    numastat: v.numastat === true,
    json: v.json === true,
    procs: v.procs === true,
    cgroup,
    cgroupPath: cgroup ? (positionals[0] ?? null) : null,
    top: positiveNumber(v.top, '--top', true) ?? DEFAULT.top,
    windowSeconds: positiveNumber(v.window, '--window', false) ?? DEFAULT.windowSeconds,
    watch: positiveNumber(v.watch, '--watch', false),
    count: positiveNumber(v.count, '--count', true),
    compat: false,
    help,
  };
  o.compat =
    !o.cgroup &&
    !o.compress &&
    !o.meminfo &&
    !o.counters &&
    specs.length === 0 &&
    o.sort === null &&
    !o.verbose &&
    o.showZero;
  if (!help) checkModes(o, v);
  return o;
}
