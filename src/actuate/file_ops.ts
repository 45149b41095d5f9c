// The file system calls that change things (the journal, --persist files, kernel knobs), behind
// one table so that a test can make any of them fail (ENOSPC, EPERM, EIO, a short write) or stop
// the process after one of them. The table is swapped only by code (interceptFileOps); no
// environment variable or option reads it, so a shipped numakit always runs the real calls,
// and the lookup (one property read per call) costs nothing measurable when nothing intercepts.
import * as fs from 'node:fs';

export interface FileOps {
  openSync(path: string, flags: string | number, mode?: number): number;
  /** Bytes written; may be fewer than asked (a full disk): callers loop. */
  writeSync(fd: number, data: Uint8Array, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  /** Like mkdirSync(recursive): the first directory created, or undefined when it existed. */
  mkdirSync(path: string, mode?: number): string | undefined;
}

export const REAL_FILE_OPS: FileOps = {
  openSync: (path, flags, mode) => fs.openSync(path, flags, mode),
  writeSync: (fd, data, offset, length) => fs.writeSync(fd, data, offset, length),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (from, to) => fs.renameSync(from, to),
  unlinkSync: (path) => fs.unlinkSync(path),
  mkdirSync: (path, mode) => fs.mkdirSync(path, { recursive: true, mode }),
};

let current: FileOps = REAL_FILE_OPS;

/** The calls in use now. */
export function fileOps(): FileOps {
  return current;
}

/**
 * Tests only: routes every call through `wrap(real)` (null: back to the real calls). Returns the
 * previous table so a test can put it back.
 */
export function interceptFileOps(wrap: ((real: FileOps) => FileOps) | null): FileOps {
  const before = current;
  current = wrap === null ? REAL_FILE_OPS : wrap(REAL_FILE_OPS);
  return before;
}
