// The journal lock, STATE_DIR/lock (O_EXCL, holding the holder's pid): two applies, rollbacks or
// agents never interleave their change sets. A lock left by a dead process (an apply killed with
// SIGKILL) is taken over; a live holder is an error naming it.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NumakitError } from '../model/errors.js';

/** True when `pid` exists (EPERM: it exists but belongs to another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A state directory this process cannot create or write, as one line that says what to do. */
export function stateDirError(stateDir: string, e: unknown): NumakitError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    const uid = process.getuid?.();
    const who = uid === 0 ? 'root' : `uid ${uid}`;
    return new NumakitError(
      `cannot write the journal in ${stateDir}: ${code === 'EROFS' ? 'read-only file system' : `permission denied for ${who}`} (${code}); changes need root and a writable state directory (--state-dir DIR)`,
    );
  }
  return new NumakitError(`cannot write the journal in ${stateDir}: ${(e as Error).message}`);
}

/** Takes STATE_DIR/lock; returns the release function. */
export function acquireLock(stateDir: string): () => void {
  try {
    mkdirSync(join(stateDir, 'journal'), { recursive: true, mode: 0o700 });
  } catch (e) {
    throw stateDirError(stateDir, e);
  }
  const path = join(stateDir, 'lock');
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return () => unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw stateDirError(stateDir, e);
    }
    let holder: number;
    try {
      holder = Number(readFileSync(path, 'utf8').trim());
    } catch {
      continue; // released between our open and our read
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new NumakitError(`another numakit apply, rollback or agent is running (pid ${holder}; lock ${path})`);
    }
    try {
      unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw stateDirError(stateDir, e);
    }
  }
  throw new NumakitError(`cannot take the lock ${path}`);
}
