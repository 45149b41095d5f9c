// Crash-safe file replacement: write a temporary file beside the target, fsync it, rename it
// over the target, fsync the directory. After a crash (or SIGKILL) the file is either the old
// or the new content, never half of each (rename(2) is atomic within a file system).
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function atomicWrite(path: string, text: string, mode = 0o644): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}`);
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  fsyncDir(dir);
}

/** Removes a file durably (the directory entry is fsynced). */
export function atomicRemove(path: string): void {
  unlinkSync(path);
  fsyncDir(dirname(path));
}
