// Crash-safe file replacement: write a temporary file beside the target (every byte: a short
// write on a full disk is continued, and a write that makes no progress is an error), fsync it,
// rename it over the target, fsync the directory. After a crash (or SIGKILL) the file is either
// the old or the new content, never half of each (rename(2) is atomic within a file system);
// when any step fails the target is untouched and the error says which step and why.
import { chmodSync, constants as fsConstants, lstatSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { NumakitError } from '../model/errors.js';
import { fileOps, type FileOps } from './file_ops.js';

/** A failed step of a durable write: the file, the step and the errno code. */
export class DurableWriteError extends NumakitError {
  constructor(
    readonly path: string,
    readonly step: string,
    readonly code: string,
    detail: string,
  ) {
    super(`${path}: ${step} failed: ${detail}`);
    this.name = 'DurableWriteError';
  }
}

const WHY: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device (ENOSPC)',
  EDQUOT: 'disk quota exceeded (EDQUOT)',
  EPERM: 'not permitted (EPERM)',
  EACCES: 'permission denied (EACCES)',
  EIO: 'input/output error (EIO)',
  ENOMEM: 'cannot allocate memory (ENOMEM: memory pressure)',
  EROFS: 'read-only file system (EROFS)',
  ENOENT: 'no such file or directory (ENOENT)',
};

function wrapped(e: unknown, path: string, step: string): DurableWriteError {
  if (e instanceof DurableWriteError) return e;
  const code = (e as NodeJS.ErrnoException).code ?? 'ERROR';
  return new DurableWriteError(path, step, code, WHY[code] ?? (e as Error).message);
}

function writeAll(fs: FileOps, fd: number, data: Uint8Array, path: string): void {
  for (let off = 0; off < data.length; ) {
    const n = fs.writeSync(fd, data, off, data.length - off);
    // A regular file that takes 0 bytes of a non-empty write is full: the next call would spin.
    if (!(n > 0))
      throw new DurableWriteError(
        path,
        'write',
        'ENOSPC',
        `wrote ${off} of ${data.length} bytes, then the file system took no more`,
      );
    off += n;
  }
}

function fsyncDir(fs: FileOps, dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates `dir` (and parents) and makes each new entry durable: fsync of every parent it was added to. */
function ensureDir(fs: FileOps, dir: string, mode: number): void {
  const first = fs.mkdirSync(dir, mode);
  if (first === undefined) return;
  for (let d = dir; ; d = dirname(d)) {
    fsyncDir(fs, dirname(d));
    if (d === first || dirname(d) === d) break;
  }
}

function attempt<T>(path: string, step: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw wrapped(e, path, step);
  }
}

/** Replaces `path` with `text`, durably; throws DurableWriteError, leaving `path` as it was. */
export function atomicWrite(path: string, text: string, mode = 0o644): void {
  replaceFile(path, text, { mode, createDir: true });
}

/**
 * Writes a file at a path the user named (snapshot FILE.tar.gz, topo --svg FILE, bench --save
 * FILE): the same steps, with its directory required to exist. Whatever is at the path (a file, a
 * symlink another user planted in /tmp) is replaced by the rename, never written through.
 */
export function writeNamedFile(path: string, data: string | Uint8Array): void {
  replaceFile(path, data, { mode: 0o644, createDir: false });
}

// A new file only (O_EXCL), never through a link (O_NOFOLLOW): a name planted beside the target
// is refused, and the next name is tried.
const NEW_FILE = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;

function openNew(fs: FileOps, dir: string, path: string, mode: number): { tmp: string; fd: number } {
  for (let k = 0; ; k++) {
    const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}${k === 0 ? '' : `-${k}`}`);
    try {
      return { tmp, fd: fs.openSync(tmp, NEW_FILE, mode) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'EEXIST' && code !== 'ELOOP') || k >= 100) throw wrapped(e, tmp, 'open');
    }
  }
}

function replaceFile(path: string, data: string | Uint8Array, o: { mode: number; createDir: boolean }): void {
  const fs = fileOps();
  const dir = dirname(path);
  if (o.createDir) attempt(dir, 'mkdir', () => ensureDir(fs, dir, o.mode === 0o600 ? 0o700 : 0o755));
  const { tmp, fd } = openNew(fs, dir, path, o.mode);
  let step = 'write';
  let open = true;
  try {
    writeAll(fs, fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, tmp);
    step = 'fsync';
    fs.fsyncSync(fd);
    step = 'close';
    open = false; // Linux frees the descriptor even when close(2) fails: never close it twice
    fs.closeSync(fd);
    step = 'rename';
    fs.renameSync(tmp, path);
  } catch (e) {
    if (open) ignore(() => fs.closeSync(fd));
    ignore(() => fs.unlinkSync(tmp));
    throw wrapped(e, step === 'rename' ? path : tmp, step);
  }
  attempt(dir, 'fsync of the directory', () => fsyncDir(fs, dir));
}

/**
 * Fills a new directory made beside `dir` (mkdtemp: a fresh name, made by this call) and renames
 * it into place, as plan --out and snapshot DIR do: a symlink at `dir` is replaced, not followed,
 * and so is an empty directory (the caller refuses a non-empty one it may not replace). On
 * failure the new directory is removed and `dir` is as it was.
 */
export async function replaceDir(dir: string, fill: (tmp: string) => void | Promise<void>): Promise<void> {
  const parent = dirname(resolve(dir));
  const tmp = mkdtempSync(join(parent, `.${basename(resolve(dir))}.tmp-`));
  try {
    await fill(tmp);
    chmodSync(tmp, 0o755);
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st !== undefined) rmSync(dir, { recursive: st.isDirectory(), force: true });
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

function ignore(fn: () => void): void {
  try {
    fn();
  } catch {
    // Best effort: the first failure is the one reported.
  }
}

/** Removes a file durably (the directory entry is fsynced). */
export function atomicRemove(path: string): void {
  const fs = fileOps();
  attempt(path, 'unlink', () => fs.unlinkSync(path));
  attempt(dirname(path), 'fsync of the directory', () => fsyncDir(fs, dirname(path)));
}
