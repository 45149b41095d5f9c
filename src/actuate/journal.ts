// The journal: one JSON file per change set under STATE_DIR/journal/, each rewritten
// atomically (atomic_write.ts) every time an entry changes, so that after a SIGKILL it holds
// every old value whose write may have happened. A lock file keeps two applies or rollbacks
// from interleaving.
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeSet } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import { atomicWrite } from './atomic_write.js';

export const DEFAULT_STATE_DIR = '/var/lib/numakit';

function journalDir(stateDir: string): string {
  return join(stateDir, 'journal');
}

/** Saves (creates or replaces) a change set durably. */
export function saveChangeSet(stateDir: string, cs: ChangeSet): void {
  atomicWrite(join(journalDir(stateDir), `${cs.id}.json`), `${JSON.stringify(cs, null, 1)}\n`, 0o600);
}

/** Checks the shape just enough that later code can trust it; a clear error otherwise. */
export function parseChangeSet(text: string, path: string): ChangeSet {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new NumakitError(`${path}: journal file is not valid JSON (${(e as Error).message})`);
  }
  const cs = v as ChangeSet;
  if (typeof cs !== 'object' || cs === null || cs.version !== 1 || typeof cs.id !== 'string' || !Array.isArray(cs.entries) || !Array.isArray(cs.files)) {
    throw new NumakitError(`${path}: not a numakit change set (version 1)`);
  }
  return cs;
}

export function loadChangeSet(stateDir: string, id: string): ChangeSet {
  if (!/^[\w.-]+$/.test(id)) throw new NumakitError(`no change set '${id}' (see numakit journal)`);
  const path = join(journalDir(stateDir), `${id}.json`);
  if (!existsSync(path)) throw new NumakitError(`no change set '${id}' in ${journalDir(stateDir)} (see numakit journal)`);
  return parseChangeSet(readFileSync(path, 'utf8'), path);
}

/** Every change set, oldest first (ids sort by time). */
export function listChangeSets(stateDir: string): ChangeSet[] {
  const dir = journalDir(stateDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .sort()
    .map((n) => parseChangeSet(readFileSync(join(dir, n), 'utf8'), join(dir, n)));
}

/** A new id from the time, "20250105-142301", with "-2", "-3" ... when taken. */
export function newChangeSetId(stateDir: string, now: Date): string {
  const base = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const dir = journalDir(stateDir);
  let id = base;
  for (let n = 2; existsSync(join(dir, `${id}.json`)); n++) id = `${base}-${n}`;
  return id;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the process that wrote an "applying" set is still running. */
export function isRunning(cs: ChangeSet): boolean {
  return cs.status === 'applying' && cs.pid !== process.pid && alive(cs.pid);
}

/**
 * Takes STATE_DIR/lock (O_EXCL, holding our pid). A lock left by a dead process (an apply
 * killed with SIGKILL) is taken over; a live holder is an error. Returns the release function.
 */
export function acquireLock(stateDir: string): () => void {
  mkdirSync(journalDir(stateDir), { recursive: true, mode: 0o700 });
  const path = join(stateDir, 'lock');
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return () => unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder: number;
    try {
      holder = Number(readFileSync(path, 'utf8').trim());
    } catch {
      continue; // released between our open and our read
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new NumakitError(`another numakit apply or rollback is running (pid ${holder}; lock ${path})`);
    }
    unlinkSync(path);
  }
  throw new NumakitError(`cannot take the lock ${path}`);
}
