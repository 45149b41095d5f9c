// The journal: one JSON file per change set under STATE_DIR/journal/, each rewritten durably
// (atomic_write.ts: every byte, fsync, rename, fsync of the directory) every time an entry
// changes, so that after a SIGKILL it holds every old value whose write may have happened. A
// write that fails is a JournalWriteError: the caller stops and puts back what it changed.
// A file that cannot be read as a change set is corrupt: reported, skipped, and set aside into
// journal/corrupt/ by the commands that hold the lock; it never blocks the other sets.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeSet } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import { atomicWrite, DurableWriteError } from './atomic_write.js';
import { checkChangeSet } from './journal_check.js';
import { alive } from '../runtime/pid_alive.js';
import { compareChangeSets, idNumber, nameNumber, parseCounter } from './journal_order.js';

export { acquireLock } from './journal_lock.js';

export { DEFAULT_STATE_DIR } from '../runtime/state_dir.js';

export function journalDir(stateDir: string): string {
  return join(stateDir, 'journal');
}

/** The journal could not be written: the step, the file and the errno. */
export class JournalWriteError extends NumakitError {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`cannot write the journal: ${detail}`);
    this.name = 'JournalWriteError';
  }
}

/** Saves (creates or replaces) a change set durably; throws JournalWriteError. */
export function saveChangeSet(stateDir: string, cs: ChangeSet): void {
  const path = join(journalDir(stateDir), `${cs.id}.json`);
  try {
    atomicWrite(path, `${JSON.stringify(cs, null, 1)}\n`, 0o600);
  } catch (e) {
    throw new JournalWriteError(path, e instanceof DurableWriteError ? e.message : `${path}: ${(e as Error).message}`);
  }
}

/** A journal file that is not a change set, with why. */
export class CorruptJournalError extends NumakitError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: corrupt journal file (${reason})`);
    this.name = 'CorruptJournalError';
  }
}

/** Parses and checks a journal file; CorruptJournalError naming the first problem. */
export function parseChangeSet(text: string, path: string): ChangeSet {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new CorruptJournalError(path, `not valid JSON: ${(e as Error).message}`);
  }
  const why = checkChangeSet(v);
  if (why !== null) throw new CorruptJournalError(path, why);
  return v as ChangeSet;
}

function readJournalFile(path: string, dir: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw journalReadError(dir, e);
  }
}

/** EACCES on a root-only state directory is not "no change sets": it says whose it is. */
function journalReadError(dir: string, e: unknown): NumakitError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') {
    return new NumakitError(
      `cannot read the journal ${dir}: permission denied for uid ${process.getuid?.()} (${code}); it is root's: run as root, or give --state-dir DIR`,
    );
  }
  return new NumakitError(`cannot read the journal ${dir}: ${(e as Error).message}`);
}

export function loadChangeSet(stateDir: string, id: string): ChangeSet {
  const dir = journalDir(stateDir);
  if (!/^[\w.-]+$/.test(id)) throw new NumakitError(`no change set '${id}' (see numakit journal)`);
  const path = join(dir, `${id}.json`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new NumakitError(`no change set '${id}' in ${dir} (see numakit journal)`);
    throw journalReadError(dir, e);
  }
  const cs = parseChangeSet(text, path);
  if (cs.id !== id) throw new CorruptJournalError(path, `it holds change set '${cs.id}'`);
  return cs;
}

export interface CorruptFile {
  readonly name: string;
  readonly path: string;
  readonly reason: string;
}

export interface JournalContents {
  /** Every readable change set, oldest first. */
  readonly sets: ChangeSet[];
  /** Files in journal/ that are not change sets. */
  readonly corrupt: CorruptFile[];
  /** Names already set aside in journal/corrupt/. */
  readonly setAside: string[];
}

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw journalReadError(dir, e);
  }
}

/** Reads the journal; corrupt files are listed, never thrown. Permission errors are. */
export function readJournal(stateDir: string): JournalContents {
  const dir = journalDir(stateDir);
  const sets: ChangeSet[] = [];
  const corrupt: CorruptFile[] = [];
  for (const name of names(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
    const path = join(dir, name);
    try {
      const cs = parseChangeSet(readJournalFile(path, dir), path);
      if (`${cs.id}.json` !== name) throw new CorruptJournalError(path, `it holds change set '${cs.id}'`);
      sets.push(cs);
    } catch (e) {
      if (!(e instanceof CorruptJournalError)) throw e;
      corrupt.push({ name, path, reason: e.reason });
    }
  }
  return { sets: sets.sort(compareChangeSets), corrupt, setAside: names(join(dir, 'corrupt')).sort() };
}

/** Every readable change set, oldest first (corrupt files skipped: see readJournal). */
export function listChangeSets(stateDir: string): ChangeSet[] {
  return readJournal(stateDir).sets;
}

/**
 * For commands holding the lock: reads the journal, moves corrupt files to journal/corrupt/
 * (kept for a person to read; each named through `warn`), removes temporary files of dead
 * writers, and returns the change sets.
 */
export function sweepJournal(stateDir: string, warn: (line: string) => void = () => {}): ChangeSet[] {
  const dir = journalDir(stateDir);
  const j = readJournal(stateDir);
  for (const c of j.corrupt) {
    let to = join(dir, 'corrupt', c.name);
    for (let n = 2; existsSync(to); n++) to = join(dir, 'corrupt', `${c.name}.${n}`);
    try {
      mkdirSync(join(dir, 'corrupt'), { recursive: true, mode: 0o700 });
      renameSync(c.path, to);
      warn(`${c.path}: corrupt journal file (${c.reason}); set aside as ${to}: numakit cannot undo what it may record`);
    } catch (e) {
      warn(`${c.path}: corrupt journal file (${c.reason}); skipped (cannot set it aside: ${(e as Error).message})`);
    }
  }
  for (const n of names(dir)) {
    const m = /^\..+\.tmp-(\d+)$/.exec(n);
    if (m !== null && Number(m[1]) !== process.pid && !alive(Number(m[1]))) unlinkSync(join(dir, n));
  }
  return j.sets;
}

/** The fields of a new change set; id and time are given by createChangeSet. */
export type NewChangeSet = Omit<ChangeSet, 'version' | 'id' | 'time'>;

/**
 * Creates and saves a change set with the next id of the sequence (call it holding the lock).
 * The counter (journal/.seq) is saved durably first, so an id is never handed out twice even
 * when the set's own file is later lost; without it, the highest id present decides.
 */
export function createChangeSet(stateDir: string, fields: NewChangeSet, now: Date): ChangeSet {
  const dir = journalDir(stateDir);
  const counter = join(dir, '.seq');
  let last = parseCounter(existsSync(counter) ? readJournalFile(counter, dir) : null);
  for (const n of names(dir)) last = Math.max(last, idNumber(n.replace(/\.json$/, '')) ?? 0);
  for (const n of names(join(dir, 'corrupt'))) last = Math.max(last, nameNumber(n));
  const id = String(last + 1);
  try {
    atomicWrite(counter, `${id}\n`, 0o600);
  } catch (e) {
    throw new JournalWriteError(counter, e instanceof DurableWriteError ? e.message : (e as Error).message);
  }
  const cs: ChangeSet = { version: 1, id, time: now.toISOString(), ...fields };
  saveChangeSet(stateDir, cs);
  return cs;
}

/** True when the process that wrote an "applying" set is still running. */
export function isRunning(cs: ChangeSet): boolean {
  return cs.status === 'applying' && cs.pid !== process.pid && alive(cs.pid);
}
