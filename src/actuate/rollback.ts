// Undo: put back the old value of every journaled entry whose write may have happened
// (newest first), and restore or remove the files --persist wrote. Each step is journaled,
// so a rollback that is itself interrupted can be run again.
import { existsSync } from 'node:fs';
import {
  changeLabel,
  formatIrqList,
  needsUndo,
  type ChangeSet,
  type ChangeSetStatus,
  type JournalEntry,
  type TunedEntry,
} from '../model/change.js';
import { NumakitError, NothingToDo } from '../model/errors.js';
import { atomicRemove, atomicWrite } from './atomic_write.js';
import { acquireLock, saveChangeSet, sweepJournal } from './journal.js';
import { sameValue, knobValue, writeTarget } from './targets.js';
import type { System } from './system.js';

export interface UndoResult {
  readonly changeSet: ChangeSet;
  /** Labels of the targets put back (not those that still had their old value). */
  readonly restored: string[];
  /** One line per target that is still changed: its label, its value now, its old value, why. */
  readonly failures: string[];
  /** Targets that had been changed again by someone else since the apply (restored anyway). */
  readonly drifted: string[];
  /** The first journal write that failed during the undo (the values were put back all the same). */
  readonly journalError?: string;
}

export interface UndoOptions {
  readonly stateDir: string;
  /** Status when everything was put back ('rolled-back', or 'failed' for an apply undoing itself). */
  readonly doneStatus?: ChangeSetStatus;
  readonly log?: (line: string) => void;
  /**
   * Journal each step as it is done (default), or only the outcome at the end: for an undo that
   * is safe to run again as a whole (an entry already at its old value is only recorded), where
   * the time to put things back matters (the agent's stop).
   */
  readonly journalEachStep?: boolean;
}

function readNow(sys: System, e: JournalEntry): string | null {
  if (e.change.kind === 'irqbalance-ban') return sys.irqbalance ? formatIrqList(sys.irqbalance.banned()) : null;
  return e.change.kind === 'service' ? (sys.services?.state(e.change.target) ?? null) : sys.read(e.path!);
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The line for a target still changed: "/proc/sys/vm/swappiness is still '10' (was '60'): why". */
function stillChanged(label: string, now: string | null, e: JournalEntry, why: string): string {
  const reason = why.startsWith(`${label}: `) ? why.slice(label.length + 2) : why;
  const value = now === null ? 'may still be changed' : `is still '${knobValue(now)}'`;
  return `${label} ${value} (was '${e.restore}'): ${reason}`;
}

function tryRead(sys: System, e: JournalEntry): string | null {
  try {
    return readNow(sys, e);
  } catch {
    return null;
  }
}

/** Puts one entry back: 'restored', 'unchanged' (it already had its old value), or a still-changed line. */
function undoEntry(sys: System, e: JournalEntry, drifted: string[]): string {
  const label = changeLabel(e.change, e.path);
  let before: string | null;
  try {
    before = readNow(sys, e);
  } catch (err) {
    return stillChanged(label, null, e, `cannot read it: ${messageOf(err)}`);
  }
  // Already the old value: the write never happened (it failed, or SIGKILL came first). Nothing to do.
  if (before !== null && sameValue(e.change, e.path, before, e.restore)) return 'unchanged';
  if (before !== null && e.state === 'written' && !sameValue(e.change, e.path, before, e.change.value))
    drifted.push(label);
  try {
    writeTarget(sys, e.change, e.path, e.restore);
  } catch (err) {
    return stillChanged(label, tryRead(sys, e) ?? before, e, messageOf(err));
  }
  const after = tryRead(sys, e);
  if (after === null || !sameValue(e.change, e.path, after, e.restore)) {
    return stillChanged(
      label,
      after,
      e,
      `wrote '${e.restore}' back but it reads '${after === null ? 'nothing' : knobValue(after)}'`,
    );
  }
  return 'restored';
}

function undoFile(path: string, old: string | null): string | null {
  try {
    if (old === null) {
      if (existsSync(path)) atomicRemove(path);
    } else atomicWrite(path, old);
    return null;
  } catch (err) {
    const now =
      old === null
        ? 'is still there (numakit wrote it; it did not exist before)'
        : 'still holds what numakit wrote (the old content is in the journal)';
    return `${path} ${now}: ${messageOf(err)}`;
  }
}

/** Switches tuned back to the profiles active before the apply; null, or a still-changed line. */
function undoTunedProfile(sys: System, t: TunedEntry): string | null {
  const back = t.old.join(' ') || '(none)';
  if (!sys.tuned) {
    return `tuned profile ${t.profile} may still be active (was '${back}'): tuned does not run now; run tuned-adm ${t.old.length === 0 ? 'off' : `profile ${back}`}`;
  }
  // Already back (the switch never happened, or someone switched back): nothing to do.
  if (sys.tuned.active().join(' ') === t.old.join(' ') && !t.old.includes(t.profile)) return null;
  try {
    sys.tuned.activate(t.old);
    return null;
  } catch (err) {
    return `tuned profile ${sys.tuned.active().join(' ') || '(none)'} is still active (was '${back}'): ${messageOf(err)}`;
  }
}

/**
 * Undoes a change set, newest entry first, journaling each step. A journal write that fails does
 * not stop the undo (putting values back matters more than recording it): the first such error
 * is returned, and the file then still lists entries that are back (a later rollback finds them
 * already at their old value and only records it).
 */
export function undoChangeSet(sys: System, cs: ChangeSet, opts: UndoOptions): UndoResult {
  const undo = new Undo(sys, cs, opts);
  // tuned goes back first: switching profiles, it puts back what it found when the profile started
  // (the values this apply wrote), and the entries below then restore what was there before. A
  // profile that was already active before is reloaded after its files are restored instead.
  const reload = cs.tuned?.old.includes(cs.tuned.profile) === true;
  if (!reload) undo.tuned();
  undo.entries();
  undo.files();
  if (reload) undo.tuned();
  return undo.finish();
}

/** One undo under way: the change set as last journaled, and what was put back or is still changed. */
class Undo {
  private cur: ChangeSet;
  private readonly restored: string[] = [];
  private readonly failures: string[] = [];
  private readonly drifted: string[] = [];
  private journalError: string | undefined;

  constructor(
    private readonly sys: System,
    cs: ChangeSet,
    private readonly opts: UndoOptions,
  ) {
    this.cur = cs;
  }

  /** Journals the next state (at the end only, without journalEachStep); the first write that fails is kept and the undo goes on. */
  private save(next: ChangeSet, last = false): void {
    this.cur = next;
    if (!last && this.opts.journalEachStep === false) return;
    try {
      saveChangeSet(this.opts.stateDir, next);
    } catch (e) {
      this.journalError ??= messageOf(e);
    }
  }

  /** Switches tuned back to the profiles active before the apply. */
  tuned(): void {
    const t = this.cur.tuned;
    if (t === undefined || t.state === 'restored') return;
    const failure = undoTunedProfile(this.sys, t);
    if (failure !== null) {
      this.failures.push(failure);
      return;
    }
    this.restored.push(`tuned profile ${t.old.join(' ') || '(off)'}`);
    this.opts.log?.(`tuned profile back to ${t.old.join(' ') || '(off: tuned-adm off)'}`);
    this.save({ ...this.cur, tuned: { ...t, state: 'restored' } });
  }

  /** Every entry whose write may have happened, newest first. */
  entries(): void {
    for (let i = this.cur.entries.length - 1; i >= 0; i--) {
      const e = this.cur.entries[i]!;
      if (e.state !== 'writing' && e.state !== 'written') continue;
      const outcome = undoEntry(this.sys, e, this.drifted);
      if (outcome !== 'restored' && outcome !== 'unchanged') {
        this.failures.push(outcome);
        continue;
      }
      if (outcome === 'restored') {
        this.restored.push(changeLabel(e.change, e.path));
        this.opts.log?.(`restored ${changeLabel(e.change, e.path)}: ${e.restore}`);
      }
      this.save({ ...this.cur, entries: this.cur.entries.map((x, j) => (j === i ? { ...x, state: 'restored' } : x)) });
    }
  }

  /** The files --persist wrote: restored to what they held, or removed where they were new. */
  files(): void {
    for (let i = this.cur.files.length - 1; i >= 0; i--) {
      const f = this.cur.files[i]!;
      if (f.state === 'restored') continue;
      const failure = undoFile(f.path, f.old);
      if (failure !== null) {
        this.failures.push(failure);
        continue;
      }
      this.restored.push(f.path);
      this.opts.log?.(`${f.old === null ? 'removed' : 'restored'} ${f.path}`);
      this.save({ ...this.cur, files: this.cur.files.map((x, j) => (j === i ? { ...x, state: 'restored' } : x)) });
    }
  }

  /** Journals the outcome: rolled back, or rollback-incomplete with what is still changed. */
  finish(): UndoResult {
    const { cur, failures } = this;
    const status: ChangeSetStatus =
      failures.length > 0 ? 'rollback-incomplete' : (this.opts.doneStatus ?? 'rolled-back');
    const error =
      failures.length > 0
        ? `${cur.error === undefined ? '' : `${cur.error}; `}still changed: ${failures.join('; ')}`
        : cur.error;
    this.save(
      { ...cur, status, rolledBackAt: new Date().toISOString(), ...(error === undefined ? {} : { error }) },
      true,
    );
    const journalError = this.journalError;
    return {
      changeSet: this.cur,
      restored: this.restored,
      failures,
      drifted: this.drifted,
      ...(journalError === undefined ? {} : { journalError }),
    };
  }
}

export interface RollbackOptions {
  readonly stateDir: string;
  /** A change set id; default: the newest set with something to undo. */
  readonly id?: string;
  /** Every set with something to undo, newest first. */
  readonly all?: boolean;
  readonly log?: (line: string) => void;
  /** Corrupt journal files set aside, one line each. */
  readonly warn?: (line: string) => void;
}

/** The sets a rollback undoes, newest first. Throws when there is nothing to do. */
export function selectForRollback(sets: readonly ChangeSet[], opts: { id?: string; all?: boolean }): ChangeSet[] {
  // Sets of `numakit agent` hold thread affinities that only `numakit agent restore` puts back.
  const pending = sets.filter((s) => needsUndo(s) && s.threads === undefined).reverse();
  if (opts.id !== undefined) {
    const cs = sets.find((s) => s.id === opts.id);
    if (cs === undefined) throw new NumakitError(`no change set '${opts.id}' (see numakit journal)`);
    if (cs.threads !== undefined)
      throw new NumakitError(`change set ${cs.id} was made by numakit agent: run 'numakit agent restore'`);
    if (!needsUndo(cs)) throw new NothingToDo(`change set ${cs.id} has nothing to roll back (status ${cs.status})`);
    return [cs];
  }
  const agent = sets.filter((s) => needsUndo(s) && s.threads !== undefined);
  if (pending.length === 0 && agent.length > 0)
    throw new NumakitError(
      `nothing for rollback: change set ${agent.at(-1)!.id} holds numakit agent's changes: run 'numakit agent restore'`,
    );
  if (sets.length === 0) throw new NothingToDo('nothing to roll back: the journal has no change sets');
  if (pending.length === 0)
    throw new NothingToDo('nothing to roll back: every change set in the journal is already undone');
  return opts.all ? pending : [pending[0]!];
}

/** Rolls back the chosen change sets under the journal lock. */
export function rollback(sys: System, opts: RollbackOptions): UndoResult[] {
  const release = acquireLock(opts.stateDir);
  try {
    const chosen = selectForRollback(sweepJournal(opts.stateDir, opts.warn), opts);
    return chosen.map((cs) => undoChangeSet(sys, cs, { stateDir: opts.stateDir, log: opts.log }));
  } finally {
    release();
  }
}
