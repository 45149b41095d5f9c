// Apply a plan: for each change, journal the old value (durably) before writing, write, read
// back and compare. Any failure rolls back what this apply already changed and says so.
// NUMAKIT_TEST_APPLY_DELAY_MS (tests only) sleeps after each write so a test can SIGKILL
// an apply half way and prove that `rollback` undoes it.
import { existsSync, readFileSync } from 'node:fs';
import { changeLabel, type ChangeSet, type JournalEntry, type PlannedChange } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import { atomicWrite } from './atomic_write.js';
import { acquireLock, createChangeSet, JournalWriteError, saveChangeSet, sweepJournal } from './journal.js';
import { undoChangeSet, type UndoResult } from './rollback.js';
import { readTarget, sameValue, knobValue, writeTarget } from './targets.js';
import type { System } from './system.js';

export interface PersistFile {
  /** Absolute path to write. */
  readonly path: string;
  readonly text: string;
  /** Default 0644. */
  readonly mode?: number;
}

export interface ApplyOptions {
  readonly stateDir: string;
  /** "profile database", "file tune.yaml", "doctor". */
  readonly source: string;
  readonly now?: Date;
  /** Sleep after each write (default: NUMAKIT_TEST_APPLY_DELAY_MS, else 0). */
  readonly delayMs?: number;
  /** Persistent files (--persist), written after the runtime changes and journaled with them. */
  readonly persist?: readonly PersistFile[];
  /** A tuned profile among the persisted files to activate once they are written (when tuned runs). */
  readonly tunedProfile?: string;
  readonly log?: (line: string) => void;
  /** Corrupt journal files set aside, one line each. */
  readonly warn?: (line: string) => void;
  /** Called once the change set is journaled, before the first write (the CLI prints the list then). */
  readonly onStart?: (cs: ChangeSet) => void;
}

/** Changes this process may not make (non-root): their labels. Empty for root. */
export function changesNeedingRoot(sys: System, plan: readonly PlannedChange[]): string[] {
  if (sys.isRoot) return [];
  return plan
    .filter((p) => p.action === 'change' && (p.path === null || !sys.canWrite(p.path)))
    .map((p) => changeLabel(p.change, p.path));
}

function sleep(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function envDelay(): number {
  const v = Number(process.env.NUMAKIT_TEST_APPLY_DELAY_MS ?? 0);
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/** Journals one change, writes it and reads it back; throws NumakitError on any failure. */
function applyOne(sys: System, p: PlannedChange, journal: (e: JournalEntry) => void): void {
  const label = changeLabel(p.change, p.path);
  const now = readTarget(sys, p.change);
  if (now === null) throw new NumakitError(`${label}: vanished since it was read`);
  const entry: JournalEntry = {
    change: p.change,
    path: now.path,
    old: now.raw,
    restore: knobValue(now.raw),
    state: 'writing',
  };
  journal(entry);
  writeTarget(sys, p.change, now.path, p.change.value);
  const back = readTarget(sys, p.change);
  if (back === null || !sameValue(p.change, now.path, back.raw, p.change.value)) {
    throw new NumakitError(
      `${label}: wrote '${p.change.value}' but it reads back '${back === null ? 'nothing' : knobValue(back.raw)}'`,
    );
  }
  journal({ ...entry, state: 'written' });
}

function writePersisted(
  f: PersistFile,
  journal: (path: string, old: string | null, state: 'writing' | 'written') => void,
): void {
  const old = existsSync(f.path) ? readFileSync(f.path, 'utf8') : null;
  journal(f.path, old, 'writing');
  atomicWrite(f.path, f.text, f.mode);
  journal(f.path, old, 'written');
}

export function applyPlan(sys: System, plan: readonly PlannedChange[], opts: ApplyOptions): ChangeSet {
  const todo = plan.filter((p) => p.action === 'change');
  const needRoot = changesNeedingRoot(sys, plan);
  if (needRoot.length > 0) {
    throw new NumakitError(
      `apply --yes needs root: ${needRoot.length} change(s) not writable by uid ${process.getuid?.()}: ${needRoot.join(', ')}; nothing was changed`,
    );
  }
  const release = acquireLock(opts.stateDir);
  try {
    sweepJournal(opts.stateDir, opts.warn);
    return applyLocked(sys, todo, opts);
  } finally {
    release();
  }
}

function startChangeSet(todo: readonly PlannedChange[], opts: ApplyOptions): ChangeSet {
  try {
    return createChangeSet(
      opts.stateDir,
      { source: opts.source, status: 'applying', pid: process.pid, planned: todo.length, entries: [], files: [] },
      opts.now ?? new Date(),
    );
  } catch (e) {
    if (e instanceof JournalWriteError) throw new NumakitError(`apply refused: ${e.message}; nothing was changed`);
    throw e;
  }
}

function applyLocked(sys: System, todo: readonly PlannedChange[], opts: ApplyOptions): ChangeSet {
  const delay = opts.delayMs ?? envDelay();
  let cs = startChangeSet(todo, opts);
  opts.onStart?.(cs);
  // The in-memory set is updated before the write: if the write fails, the undo still sees the entry.
  const save = (next: ChangeSet) => saveChangeSet(opts.stateDir, (cs = next));
  try {
    for (const p of todo) {
      const at = cs.entries.length;
      applyOne(sys, p, (e) => save({ ...cs, entries: [...cs.entries.slice(0, at), e] }));
      opts.log?.(`set ${changeLabel(p.change, cs.entries[at]!.path)}: ${cs.entries[at]!.restore} -> ${p.change.value}`);
      sleep(delay);
    }
    for (const f of opts.persist ?? []) {
      const at = cs.files.length;
      writePersisted(f, (path, old, state) => save({ ...cs, files: [...cs.files.slice(0, at), { path, old, state }] }));
      opts.log?.(`wrote ${f.path}`);
    }
    if (opts.tunedProfile !== undefined && sys.tuned) {
      const entry = { profile: opts.tunedProfile, old: sys.tuned.active(), state: 'writing' as const };
      save({ ...cs, tuned: entry });
      sys.tuned.activate([opts.tunedProfile]);
      save({ ...cs, tuned: { ...entry, state: 'written' } });
      opts.log?.(`tuned profile: ${entry.old.join(' ') || '(none)'} -> ${opts.tunedProfile}`);
    }
    save({ ...cs, status: 'applied' });
  } catch (e) {
    throw undoFailedApply(sys, cs, e, opts);
  }
  return cs;
}

/** Puts back what a failed apply changed; the error says what failed, what had changed and what is back. */
function undoFailedApply(sys: System, cs: ChangeSet, e: unknown, opts: ApplyOptions): NumakitError {
  const why = e instanceof NumakitError ? e.message : `${(e as Error).message}`;
  const undo = undoChangeSet(
    sys,
    { ...cs, error: why },
    { stateDir: opts.stateDir, doneStatus: 'failed', log: opts.log },
  );
  return new NumakitError(
    `apply failed: ${why}; ${describeUndo(undo, e instanceof JournalWriteError)} (change set ${cs.id})`,
  );
}

/** "it had changed 2 (a, b): both rolled back", or what is still changed, and whether the journal knows. */
export function describeUndo(undo: UndoResult, journalBroken: boolean): string {
  const changed = undo.restored.length + undo.failures.length;
  const list = (xs: readonly string[]) =>
    xs.length <= 8 ? xs.join(', ') : `${xs.slice(0, 8).join(', ')} and ${xs.length - 8} more`;
  let text =
    changed === 0
      ? 'nothing had been changed'
      : undo.failures.length === 0
        ? `it had changed ${changed} value(s) (${list(undo.restored)}): all rolled back`
        : `it had changed ${changed} value(s): rolled back ${undo.restored.length}${undo.restored.length > 0 ? ` (${list(undo.restored)})` : ''}, STILL CHANGED (${undo.failures.length}): ${undo.failures.join('; ')}`;
  if (changed > 0 && (journalBroken || undo.journalError !== undefined)) {
    text += `; the journal file could not record the rollback${journalBroken ? '' : ` (${undo.journalError})`}: 'numakit journal' may list the set as interrupted, and 'numakit rollback' finds its values already back`;
  }
  return text;
}
