// The journal lock, STATE_DIR/lock (O_EXCL, holding the holder's pid): two applies, rollbacks or
// agents never interleave their change sets. A lock left by a dead process (an apply killed with
// SIGKILL) is taken over; a live holder is an error naming it.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NumakitError } from '../model/errors.js';
import { ensurePrivateDir, UnsafePathError } from '../runtime/private_path.js';
import { alive } from '../runtime/pid_alive.js';

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

/**
 * Takes STATE_DIR/lock; returns the release function. The state and journal directories are made
 * 0700 and refused when another user could write them (private_path.ts): what the journal says,
 * rollback and restore write back as root.
 */
export function acquireLock(stateDir: string): () => void {
  try {
    ensurePrivateDir(stateDir, 'state directory');
    ensurePrivateDir(join(stateDir, 'journal'), 'journal directory');
  } catch (e) {
    if (e instanceof UnsafePathError) throw e;
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
