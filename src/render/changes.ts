// The dry-run view of a plan (`path: old -> new`), grouped into what would change, what is
// already set and what this machine does not have; and the apply/rollback summaries.
import { changeLabel, type ChangeSet, type PlannedChange } from '../model/change.js';
import { formatCpuList } from '../model/cpuset.js';
import { renderTable } from './units.js';

function line(p: PlannedChange, label = changeLabel(p.change, p.path)): string {
  const dev = p.change.kind === 'irq-affinity' && p.change.device !== undefined ? ` [${p.change.device}]` : '';
  if (p.action === 'change') return `  ${label}: ${p.current} -> ${p.change.value}${dev}  # ${p.change.reason}`;
  if (p.action === 'same') return `  ${label}: ${p.current}${dev}`;
  return `  ${label}${dev}`;
}

/**
 * The same knob of many CPUs, IRQs or queues on one line: the first path part ending in a
 * number (cpu12, rx-3, IRQ 45) becomes N, and items with the same old and new value (and
 * device) are shown once: "/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor for N = 0-63".
 */
function groupOf(p: PlannedChange): { pattern: string; n: number } | null {
  const label = changeLabel(p.change, p.path);
  const m = /^(.*?\/(?:[a-z]+-?)?)(\d+)(\/.*)$/.exec(label);
  return m === null ? null : { pattern: `${m[1]}N${m[3]}`, n: Number(m[2]) };
}

function groupedLines(items: readonly PlannedChange[]): string[] {
  const groups = new Map<string, { first: PlannedChange; pattern: string; ns: number[] }>();
  const out: (string | { key: string })[] = [];
  for (const p of items) {
    const g = groupOf(p);
    if (g === null) {
      out.push(line(p));
      continue;
    }
    const dev = p.change.kind === 'irq-affinity' ? (p.change.device ?? '') : '';
    const key = `${g.pattern}\0${p.action === 'absent' ? '' : `${p.current}\0${p.change.value}`}\0${dev}`;
    const have = groups.get(key);
    if (have) have.ns.push(g.n);
    else {
      groups.set(key, { first: p, pattern: g.pattern, ns: [g.n] });
      out.push({ key });
    }
  }
  return out.map((o) => {
    if (typeof o === 'string') return o;
    const g = groups.get(o.key)!;
    return g.ns.length === 1 ? line(g.first) : line(g.first, `${g.pattern} for N = ${formatCpuList(g.ns)}`);
  });
}

export interface PlanViewOptions {
  readonly source: string;
  /** Writing (--yes) or only showing. */
  readonly dryRun: boolean;
  /** Settings a profile leaves alone on this machine, each "what: why". */
  readonly leftAlone?: readonly string[];
}

export function renderPlan(plan: readonly PlannedChange[], opts: PlanViewOptions): string {
  const groups: Array<[PlannedChange['action'], string]> = [
    ['change', opts.dryRun ? 'would change' : 'changing'],
    ['same', 'already set'],
    ['absent', 'not on this machine, skipped'],
  ];
  const out = [`${opts.source}: ${plan.length} setting(s)`];
  for (const [action, title] of groups) {
    const items = plan.filter((p) => p.action === action);
    if (items.length > 0) out.push(`${title} (${items.length}):`, ...groupedLines(items));
  }
  const left = opts.leftAlone ?? [];
  if (left.length > 0) out.push(`left alone here (${left.length}):`, ...left.map((l) => `  ${l}`));
  const n = plan.filter((p) => p.action === 'change').length;
  if (opts.dryRun)
    out.push(
      n === 0
        ? 'nothing to change.'
        : `dry run: nothing written. Run again with --yes to apply (every old value is journaled; numakit rollback undoes it).`,
    );
  return `${out.join('\n')}\n`;
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * "applied 3 change(s): change set 4. Undo with: numakit rollback 4", with the --state-dir the
 * user gave (`stateDir`, undefined for the default): without it the hint would undo nothing.
 */
export function renderApplied(cs: ChangeSet, opts: { stateDir?: string } = {}): string {
  const files = cs.files.length > 0 ? ` and wrote ${cs.files.length} persistent file(s)` : '';
  const dir = opts.stateDir === undefined ? '' : ` --state-dir ${shellWord(opts.stateDir)}`;
  return `applied ${cs.entries.length} change(s)${files}: change set ${cs.id}. Undo with: numakit rollback ${cs.id}${dir}\n`;
}

/** Status as shown by `journal`: an "applying" set whose process is gone was interrupted. */
export function statusText(cs: ChangeSet, running: boolean): string {
  if (cs.status === 'applying') return running ? `applying (pid ${cs.pid})` : 'interrupted';
  return cs.status;
}

export function renderJournal(sets: readonly ChangeSet[], running: (cs: ChangeSet) => boolean): string {
  if (sets.length === 0) return 'no change sets in the journal.\n';
  const rows = [['ID', 'TIME', 'SOURCE', 'STATUS', 'CHANGES', 'UNDONE']];
  for (const cs of sets) {
    const threads = cs.threads ?? [];
    const undone = [...cs.entries, ...threads].filter((e) => e.state === 'restored').length;
    // apply: written of planned; the agent plans nothing ahead: its settings and threads so far.
    const changes =
      cs.planned > 0 || threads.length === 0
        ? `${cs.entries.length}/${cs.planned}`
        : `${cs.entries.length} + ${threads.length} thread(s)`;
    rows.push([
      cs.id,
      cs.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      cs.source,
      statusText(cs, running(cs)),
      changes,
      `${undone}`,
    ]);
  }
  const notes = sets.filter((cs) => cs.error !== undefined).map((cs) => `  ${cs.id}: ${cs.error}`);
  return `${renderTable(rows)}\n${notes.length > 0 ? `${notes.join('\n')}\n` : ''}`;
}

/** The changes of one set, with their old values, for `journal ID`. */
export function renderChangeSet(cs: ChangeSet, running: boolean): string {
  const out = [`change set ${cs.id}: ${cs.source}, ${cs.time}, ${statusText(cs, running)}`];
  for (const e of cs.entries)
    out.push(`  ${changeLabel(e.change, e.path)}: ${e.restore} -> ${e.change.value}  [${e.state}]`);
  for (const f of cs.files) out.push(`  file ${f.path}${f.old === null ? ' (new)' : ' (replaced)'}  [${f.state}]`);
  for (const t of cs.threads ?? [])
    out.push(`  thread ${t.tid} of pid ${t.pid} (${t.comm}) CPU affinity: ${t.old} -> ${t.value}  [${t.state}]`);
  if (cs.error !== undefined) out.push(`  error: ${cs.error}`);
  return `${out.join('\n')}\n`;
}
