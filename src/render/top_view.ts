// What `numakit top` shows and how keys change it: pure state and a reducer, so every key is
// table-tested without a terminal (tmux tests drive the real command). Keys:
//   m l c r   sort by remote memory, locality (worst first), CPU, resident memory
//   g         group the list by cgroup (each cgroup's processes added up) and back
//   /         filter: type text, Enter keeps it, Esc clears it; it matches a name (substring),
//             a pid (exact) or a cgroup path (substring)
//   j k, arrows   move the selection;  Enter or d   drill into the selected process
//   Esc or Backspace   back from the drill-down or the help;  ?   help;  q   quit
import type { ProcessSample } from '../model/stat.js';
import type { RankedProcess } from '../policy/locality.js';

export type TopSort = 'remote' | 'locality' | 'cpu' | 'rss';

export interface TopView {
  readonly sort: TopSort;
  readonly filter: string;
  /** True while the filter is typed. */
  readonly editing: boolean;
  /** Index of the selected row in the list. */
  readonly selected: number;
  /** The process drilled into; null in the list. */
  readonly drill: number | null;
  readonly help: boolean;
  /** The list groups processes by cgroup. */
  readonly group?: boolean;
}

export const INITIAL_VIEW: TopView = {
  sort: 'remote',
  filter: '',
  editing: false,
  selected: 0,
  drill: null,
  help: false,
};

export const SORT_KEYS: Readonly<Record<string, TopSort>> = { m: 'remote', l: 'locality', c: 'cpu', r: 'rss' };
export const SORT_LABELS: Readonly<Record<TopSort, string>> = {
  remote: 'remote memory',
  locality: 'locality',
  cpu: 'CPU',
  rss: 'memory',
};

export interface KeyResult {
  readonly view: TopView;
  readonly quit: boolean;
}

/** Splits terminal input into keys: escape sequences (arrows) whole, other bytes one by one. */
export function splitKeys(input: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < input.length; ) {
    const m = /^\x1b\[[0-9;]*[A-Za-z~]/.exec(input.slice(i));
    const k = m ? m[0] : input[i]!;
    out.push(k);
    i += k.length;
  }
  return out;
}

const UP = new Set(['k', '\x1b[A']);
const DOWN = new Set(['j', '\x1b[B']);
const BACK = new Set(['\x1b', '\x7f', '\b']);

/** One key applied to the view; `pidAt(i)` is the pid of row i of the list shown now (null past its end). */
export function topKey(v: TopView, key: string, pidAt: (i: number) => number | null): KeyResult {
  const same = (view: TopView) => ({ view, quit: false });
  if (key === '\x03') return { view: v, quit: true };
  if (v.editing) {
    if (key === '\r' || key === '\n') return same({ ...v, editing: false, selected: 0 });
    if (key === '\x1b') return same({ ...v, editing: false, filter: '', selected: 0 });
    if (key === '\x7f' || key === '\b') return same({ ...v, filter: v.filter.slice(0, -1) });
    return same(key.length === 1 && key >= ' ' ? { ...v, filter: v.filter + key, selected: 0 } : v);
  }
  if (key === 'q' || key === 'Q') return { view: v, quit: true };
  if (key === '?') return same({ ...v, help: !v.help });
  if (v.help) return same(BACK.has(key) ? { ...v, help: false } : v);
  if (v.drill !== null) return same(BACK.has(key) ? { ...v, drill: null } : v);
  if (SORT_KEYS[key] !== undefined) return same({ ...v, sort: SORT_KEYS[key]!, selected: 0 });
  if (key === 'g') return same({ ...v, group: !v.group, selected: 0 });
  if (key === '/') return same({ ...v, editing: true, filter: '' });
  if (key === '\x1b') return same({ ...v, filter: '', selected: 0 });
  if (UP.has(key)) return same({ ...v, selected: Math.max(0, v.selected - 1) });
  if (DOWN.has(key)) return same(pidAt(v.selected + 1) === null ? v : { ...v, selected: v.selected + 1 });
  if (key === '\r' || key === '\n' || key === 'd') {
    const pid = pidAt(v.selected);
    return same(pid === null ? v : { ...v, drill: pid });
  }
  return same(v);
}

export type TopRow = RankedProcess<ProcessSample>;

const cpuSeconds = (p: ProcessSample) => Object.values(p.cpuNodes).reduce((a, b) => a + b, 0);
const rss = (p: ProcessSample) => (p.memory.kind === 'ok' ? p.memory.totalBytes : -1);

/** True when the filter names the process: its pid, part of its name, or part of its cgroup path. */
export function matchesFilter(filter: string, p: ProcessSample, cgroup: string | null): boolean {
  const f = filter.trim();
  if (f === '') return true;
  if (/^\d+$/.test(f) && p.pid === Number(f)) return true;
  const lower = f.toLowerCase();
  return p.comm.toLowerCase().includes(lower) || cgroup?.includes(f) === true;
}

/** The rows of the list: filtered, then sorted by the view's key (ties: more memory first). */
export function viewRows(v: TopView, rows: readonly TopRow[], cgroupOf: (pid: number) => string | null): TopRow[] {
  const kept = rows.filter((r) => matchesFilter(v.filter, r.sample, v.filter === '' ? null : cgroupOf(r.sample.pid)));
  const key: Record<TopSort, (r: TopRow) => number> = {
    remote: (r) => r.remoteBytes,
    // Worst first; unknown locality last.
    locality: (r) => (r.locality === null ? Number.NEGATIVE_INFINITY : 1 - r.locality),
    cpu: (r) => cpuSeconds(r.sample),
    rss: (r) => rss(r.sample),
  };
  const k = key[v.sort];
  return kept.sort((a, b) => k(b) - k(a) || rss(b.sample) - rss(a.sample) || a.sample.pid - b.sample.pid);
}

export const HELP_LINES = [
  'numakit top: keys',
  '',
  '  m   sort by remote memory (memory on nodes the process did not run on)',
  '  l   sort by locality, worst first',
  '  c   sort by CPU used in the last interval',
  '  r   sort by resident memory',
  '  /   filter: type a name, a pid or part of a cgroup path; Enter keeps it, Esc clears it',
  '  g   group by cgroup (its processes added up, most remote memory first); g again: processes',
  '  j k (arrows)   move the selection',
  '  Enter or d     drill into the selected process: its threads (CPU, node) and memory per node by mapping',
  '  Esc or Backspace   back to the list',
  '  ?   this help (any of Esc, Backspace or ? closes it)',
  '  q   quit (Ctrl-C too); the terminal is restored',
];

/** The status line under the title: sort key, filter, what the keys do now. */
export function statusLine(v: TopView): string {
  if (v.editing) return `filter: ${v.filter}_   (Enter: keep, Esc: clear)`;
  const filter = v.filter === '' ? '' : `  filter '${v.filter}' (Esc clears)`;
  return `${v.group ? 'by cgroup, ' : ''}sort: ${v.group ? 'remote memory' : SORT_LABELS[v.sort]}${filter}   ?: help  q: quit`;
}
