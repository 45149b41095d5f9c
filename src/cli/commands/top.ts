// numakit top: a full-screen live view (alternate screen, refreshed every interval) of nodes
// and of processes by remote memory with their locality, with keys to sort, filter, drill into
// a process and get help (render/top_view.ts). Quits on q or Ctrl-C and always gives the
// terminal back (cursor, raw mode, main screen), also on SIGTERM/SIGHUP or an error.
// Without a terminal it prints plain frames (--iterations of them, default 1), like top -b.
import { cgroupTotals } from '../../policy/cgroup_rank.js';
import { DEMOTED, PROMOTED, tieringCounters } from '../../model/tiering_counters.js';
import { readNodeVmstat } from '../../sysfs/node_vmstat.js';
import { readNodeStat } from '../../discover/node_stat.js';
import { readText } from '../../sysfs/read.js';
import { REAL_ROOT } from '../../sysfs/root.js';
import { createSampler, readDetails, type ProcessSampler as Sampler } from '../../discover/process_sampler.js';
import { UsageError } from '../../model/errors.js';
import { rankByRemote } from '../../policy/locality.js';
import { renderTopFrame, type TopNode } from '../../render/stat_top.js';
import { INITIAL_VIEW, splitKeys, topKey, viewRows, type TopRow, type TopView } from '../../render/top_view.js';
import { readCgroupPath, readProcessDetail } from '../../discover/top_detail.js';
import { readNumaBalancing, readTaskNumaFaults } from '../../discover/access_locality.js';
import { accessLocality } from '../../policy/access_locality.js';
import type { AccessLocality } from '../../model/access_locality.js';
import { discoverTopology } from '../../discover/topology.js';
import type { Topology } from '../../model/topology.js';
import type { ProcessSample } from '../../model/stat.js';
import type { Context } from '../context.js';
import { withoutSelf } from '../self.js';
import type { ParsedOptions, CommandModule } from '../options.js';
import { MAX_WAIT_MS } from '../../model/timer_limit.js';
import { wakeableWait } from '../wait.js';

const OPTIONS = {
  interval: { type: 'string', value: 'SEC', help: 'seconds between refreshes (default 1)' },
  iterations: {
    type: 'string',
    value: 'N',
    help: 'stop after N screens (default: until q; 1 when output is not a terminal)',
  },
} as const;

const ENTER = '\x1b[?1049h\x1b[?25l';
const LEAVE = '\x1b[?25h\x1b[?1049l';

interface Prev {
  counters: Map<number, Readonly<Record<string, number>>>;
  atMs: number;
}

function nodesNow(ctx: Context, prev: Prev | null, now: number): { nodes: TopNode[]; next: Prev } {
  const s = readNodeStat(ctx.root);
  const secs = prev ? (now - prev.atMs) / 1000 : 0;
  const counters = new Map(
    s.nodes.map((n, i) => [n, { ...s.numastat[i]!, ...tieringCounters(readNodeVmstat(ctx.root, n)) }]),
  );
  const nodes = s.nodes.map((id, i) => {
    const c = counters.get(id)!;
    const p = prev?.counters.get(id);
    const r = (k: string) =>
      p && secs > 0 && p[k] !== undefined && c[k] !== undefined ? Math.max(0, c[k]! - p[k]!) / secs : null;
    const m = s.meminfo[i];
    return {
      id,
      totalBytes: m?.['MemTotal'] ?? null,
      freeBytes: m?.['MemFree'] ?? null,
      hitRate: r('numa_hit'),
      missRate: r('numa_miss'),
      foreignRate: r('numa_foreign'),
      otherRate: r('other_node'),
      ...(c[PROMOTED] === undefined ? {} : { promoteRate: r(PROMOTED) }),
      ...(c[DEMOTED] === undefined ? {} : { demoteRate: r(DEMOTED) }),
    };
  });
  return { nodes, next: { counters, atMs: now } };
}

interface Sampled {
  readonly nodes: TopNode[];
  /** Ranked without name or command line (the sampler's statusLater): `detailed` adds them. */
  readonly ranked: TopRow[];
  readonly count: number;
  /** Rows with their name, command line and allowed lists, read once a sample (null: gone or refused). */
  readonly details: Map<number, TopRow | null>;
}

/**
 * The sampler reads status and cmdline of no process (statusLater): ranking needs only memory
 * and CPU nodes, and a screen shows a few dozen rows. Reading both for every process was 40% of a
 * refresh at 10,000 processes. The rows drawn get them with `detailed`.
 */
function topSampler(ctx: Context): Sampler {
  return createSampler(ctx.root, { statusLater: true });
}

/**
 * One frame's processes. A snapshot does not change: each frame shows its one pass, CPU time over
 * each process's lifetime, the numbers stat --procs gives on it (a second pass would find no CPU
 * used and weigh the nodes the threads last ran on instead).
 */
function sampleNow(ctx: Context, sampler: Sampler, state: { prev: Prev | null; fixed?: ProcessSample[] }): Sampled {
  const now = performance.now();
  const { nodes, next } = nodesNow(ctx, state.prev, now);
  state.prev = next;
  const samples = state.fixed ?? withoutSelf(sampler.sample(now), ctx);
  if (!ctx.root.isReal) state.fixed = samples;
  return { nodes, ranked: rankByRemote(samples), count: samples.length, details: new Map() };
}

/** The row with its name, command line and allowed lists (readDetails); null when its process is gone or its status refused. */
function detailed(ctx: Context, s: Sampled, row: TopRow): TopRow | null {
  let d = s.details.get(row.sample.pid);
  if (d === undefined) {
    const sample = readDetails(ctx.root, row.sample);
    d = sample === null || sample === 'refused' ? null : { ...row, sample };
    s.details.set(row.sample.pid, d);
  }
  return d;
}

/**
 * The rows of the view with the details of those that can be drawn (`upTo`: the selection plus a
 * screen); a filter matches names, so then every row gets them. A row whose process is gone is left out.
 */
function rowsWithDetails(
  ctx: Context,
  s: Sampled,
  v: TopView,
  upTo: number,
  cgroupOf: (pid: number) => string | null,
): TopRow[] {
  const present = (r: TopRow | null): r is TopRow => r !== null;
  if (v.filter.trim() !== '') return viewRows(v, s.ranked.map((r) => detailed(ctx, s, r)).filter(present), cgroupOf);
  const sorted = viewRows(v, s.ranked, cgroupOf);
  const out: TopRow[] = [];
  for (const r of sorted) {
    if (out.length >= upTo) out.push(r);
    else {
      const d = detailed(ctx, s, r);
      if (d !== null) out.push(d);
    }
  }
  return out;
}

interface Screen {
  view: TopView;
  /** The rows shown by the last draw (what j/k and Enter act on). */
  rows: TopRow[];
  topology: Topology | null;
  /** Cgroups listed by the last grouped draw (j/k move over them; there is no drill-down). */
  cgroupCount?: number;
}

function draw(ctx: Context, s: Sampled, screen: Screen, o: { interval: number; width: number; height: number }) {
  const cgroups = new Map<number, string | null>();
  const cgroupOf = (pid: number) => {
    if (!cgroups.has(pid)) cgroups.set(pid, readCgroupPath(ctx.root, pid));
    return cgroups.get(pid)!;
  };
  const v = screen.view;
  screen.rows = rowsWithDetails(ctx, s, v, v.selected + o.height, cgroupOf);
  if (v.drill === null && v.selected >= screen.rows.length && screen.rows.length > 0)
    screen.view = { ...v, selected: screen.rows.length - 1 };
  // Access locality only for the rows that can be on screen (every thread's sched file is read).
  const balancing = readNumaBalancing(ctx.root);
  const access = new Map<number, AccessLocality>();
  const shown =
    screen.view.drill !== null
      ? [screen.view.drill]
      : screen.rows.slice(0, screen.view.selected + o.height).map((r) => r.sample.pid);
  for (const pid of shown) access.set(pid, accessLocality(readTaskNumaFaults(ctx.root, pid), balancing));
  let detail = null;
  if (screen.view.drill !== null) {
    screen.topology ??= discoverTopology(ctx.root, { caches: false });
    detail = readProcessDetail(ctx.root, screen.view.drill, screen.topology);
  }
  const grouped = screen.view.group === true && screen.view.drill === null;
  const groups = grouped
    ? cgroupTotals(s.ranked, cgroupOf).filter((c) => screen.view.filter === '' || c.path.includes(screen.view.filter))
    : undefined;
  if (groups !== undefined) screen.cgroupCount = groups.length;
  return renderTopFrame({
    ...(groups === undefined ? {} : { cgroups: groups }),
    time: new Date().toTimeString().slice(0, 8),
    intervalSeconds: o.interval,
    nodes: s.nodes,
    procs: screen.rows,
    processCount: s.count,
    width: o.width,
    height: o.height,
    view: screen.view,
    detail,
    access,
  });
}

function positive(v: string | undefined, flag: string, integer: boolean): number | null {
  if (v === undefined) return null;
  const n = Number(v);
  if (!(n > 0) || (integer && !Number.isInteger(n)))
    throw new UsageError(`top: ${flag} needs a positive ${integer ? 'integer' : 'number'}, got '${v}'`);
  if (!integer && n * 1000 > MAX_WAIT_MS)
    throw new UsageError(`top: ${flag} '${v}': at most ${MAX_WAIT_MS / 1000} seconds (24 days)`);
  return n;
}

/**
 * Whether this process is in its terminal's foreground process group. A background top (top &)
 * must neither read the terminal nor change its mode: either stops it with SIGTTIN/SIGTTOU, and a
 * stopped process leaves SIGTERM pending until SIGCONT, so only SIGKILL ended it.
 */
function inForeground(): boolean {
  const text = readText(REAL_ROOT, `proc/${process.pid}/stat`);
  if (text === null) return false;
  // Fields after the last ')' (comm may hold one): rest[0] is field 3, so field N is rest[N - 3].
  const rest = text
    .slice(text.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  return rest[5] !== undefined && rest[5] === rest[2]; // tpgid (8) === pgrp (5)
}

async function live(ctx: Context, interval: number, iterations: number | null): Promise<number> {
  const out = process.stdout;
  const sampler = topSampler(ctx);
  const state = { prev: null as Prev | null };
  const screen: Screen = { view: INITIAL_VIEW, rows: [], topology: null };
  let last: Sampled | null = null;
  let quit = false;
  let wake: () => void = () => {};
  const stop = () => {
    quit = true;
    wake();
  };
  const size = () => ({ interval, width: out.columns ?? 80, height: out.rows ?? 24 });
  const paint = (lines: string[]) => out.write(`\x1b[H${lines.map((l) => `${l}\x1b[K`).join('\r\n')}\x1b[J`);
  // A key redraws at once from the last sample (no new sampling: that waits for the interval).
  const onKey = (b: Buffer) => {
    if (applyKeys(screen, b.toString('latin1'))) return stop();
    if (last !== null) paint(draw(ctx, last, screen, size()));
  };
  const release = holdTerminal({ onKey, stop, resize: () => wake() });
  try {
    for (let i = 0; !quit && (iterations === null || i < iterations); i++) {
      last = sampleNow(ctx, sampler, state);
      paint(draw(ctx, last, screen, size()));
      const wait = wakeableWait(interval * 1000);
      wake = wait.wake;
      await wait.done;
    }
  } finally {
    release();
  }
  return 0;
}

/** Applies the keys read to the screen's view; true when one of them quits. */
function applyKeys(screen: Screen, keys: string): boolean {
  for (const key of splitKeys(keys)) {
    // Grouped, a row is a cgroup: j/k move over them, Enter has no process to drill into.
    const pidAt = (i: number) =>
      screen.view.group === true
        ? (screen.cgroupCount ?? 0) > i && i > screen.view.selected
          ? 0
          : null
        : (screen.rows[i]?.sample.pid ?? null);
    const r = topKey(screen.view, key, pidAt);
    screen.view = r.view;
    if (r.quit) return true;
  }
  return false;
}

/**
 * The alternate screen, raw keys (in the foreground only), SIGINT/SIGTERM/SIGHUP and resizes for
 * the live view; the function returned gives all of them back, and so does the process's exit.
 */
function holdTerminal(h: { onKey: (b: Buffer) => void; stop: () => void; resize: () => void }): () => void {
  const out = process.stdout;
  const stdin = process.stdin;
  const keys = inForeground();
  const restore = () => {
    if (keys) stdin.setRawMode(false);
    out.write(LEAVE);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  out.write(ENTER);
  process.on('exit', restore);
  for (const s of signals) process.on(s, h.stop);
  if (keys) {
    stdin.setRawMode(true);
    stdin.on('data', h.onKey);
    stdin.resume();
  }
  out.on('resize', h.resize);
  return () => {
    if (keys) {
      stdin.off('data', h.onKey);
      stdin.pause();
    }
    out.off('resize', h.resize);
    for (const s of signals) process.off(s, h.stop);
    process.off('exit', restore);
    restore();
  };
}

async function batch(ctx: Context, interval: number, iterations: number): Promise<number> {
  const sampler = topSampler(ctx);
  const state = { prev: null as Prev | null };
  for (let i = 0; i < iterations; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, interval * 1000));
    const screen: Screen = { view: INITIAL_VIEW, rows: [], topology: null };
    const lines = draw(ctx, sampleNow(ctx, sampler, state), screen, { interval, width: 200, height: 60 });
    ctx.out(`${i > 0 ? '\n' : ''}${lines.join('\n')}\n`);
  }
  return 0;
}

const top: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[--interval SEC] [--iterations N]'],
  description: `A live view that refreshes every interval (default 1 s): each node with a bar of its memory in
use and its allocation rates (numa_hit, numa_miss, numa_foreign, other_node per second; pages
promoted in and demoted out where the kernel counts memory tiering), then processes by memory
remote from where they run, with their locality (see numakit stat --procs: the same computation;
on a snapshot both weigh each process's CPU time since it started).

RAN ON: the nodes where the process used CPU time in the last interval (0,1); in parentheses,
(0), when it used none there: then the nodes its threads last ran on, which LOCALITY weighs
equally.

Keys: m, l, c, r sort by remote memory, locality (worst first), CPU, resident memory; / filters
by name, pid or cgroup path (Enter keeps the filter, Esc clears it); g groups the list by
cgroup (each cgroup's processes added up, most remote memory first; g again: processes); j/k or the arrows move the
selection and Enter (or d) drills into a process: its threads with the CPU and node each last
ran on, and its mappings by size with their memory per node; Esc or Backspace goes back; ?
shows the keys; q quits (Ctrl-C too). The terminal is restored on exit, Ctrl-C, SIGTERM and SIGHUP.
Started in the background (top &) it reads no keys and leaves the terminal's mode alone, so
it is never stopped by SIGTTIN/SIGTTOU and SIGTERM or SIGHUP end it. numakit itself is not
listed.`,
  options: OPTIONS,
  async run({ values }, ctx) {
    const interval = positive(values.interval, '--interval', false) ?? 1;
    const iterations = positive(values.iterations, '--iterations', true);
    if (ctx.isTTY && process.stdin.isTTY) return live(ctx, interval, iterations);
    return batch(ctx, interval, iterations ?? 1);
  },
};
export default top;
