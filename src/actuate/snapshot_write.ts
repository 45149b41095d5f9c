// Writes a snapshot: copies the recorded paths from a root into a directory, recreating the
// symlinks met on the way (sysfs links are relative, so they stay valid inside the copy).
// Writes only under the output directory; never touches the system. createSnapshotArchive packs such
// a directory into a .tar.gz (read back by src/sysfs/snapshot_archive.ts).
import { writeNamedFile } from './atomic_write.js';
import { lstatSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { resolvePath } from '../sysfs/read.js';
import { makeDirs } from '../runtime/make_dirs.js';
import type { SysRoot } from '../sysfs/root.js';

export type Access = { kind: 'file' | 'dir' | 'link'; rel: string };

export interface WriteOptions {
  /** Turns a file's content before it is written (redaction); null drops the file. */
  readonly transform?: (rel: string, content: Buffer) => Buffer | null;
  /** Paths not to copy at all. */
  readonly skip?: (rel: string) => boolean;
  /** Told each file left out because this user may not read it (EACCES, EPERM). */
  readonly denied?: (rel: string) => void;
  /**
   * Paths written as plain files at the path they were read by, the links on the way followed
   * (inside the root) but not recreated: /proc/self, whose link names a pid that is no process of
   * the copy.
   */
  readonly plain?: (rel: string) => boolean;
}

function tryReadlink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

function makeLink(dst: string, rel: string, target: string): void {
  const p = join(dst, rel);
  if (tryReadlink(p) !== null) return;
  makeDirs(dirname(p));
  symlinkSync(target, p);
}

/**
 * Recreates the links along `rel` in dst and returns the resolved (link-free) path. The walk is
 * src/sysfs/read.ts's resolvePath; the links it reads are recorded and copied as they are.
 */
function mirrorPath(src: string, dst: string, rel: string): string {
  const links: string[] = [];
  const root: SysRoot = {
    dir: src,
    isReal: false,
    label: src,
    onAccess: (kind, p) => void (kind === 'link' && links.push(p)),
  };
  const real = resolvePath(root, rel);
  for (const l of links) {
    const target = tryReadlink(join(src, l));
    if (target !== null) makeLink(dst, l, target);
  }
  return real;
}

function copyListing(src: string, dst: string, real: string, opts: WriteOptions): void {
  makeDirs(join(dst, real));
  let names: string[];
  try {
    names = readdirSync(join(src, real));
  } catch {
    return;
  }
  for (const name of names) {
    const rel = `${real}/${name}`;
    if (opts.skip?.(rel)) continue;
    const st = lstatSync(join(src, rel), { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) makeLink(dst, rel, readlinkSync(join(src, rel)));
    else if (st.isDirectory()) makeDirs(join(dst, rel));
    // msi_irqs/<N> entries are the IRQ numbers themselves: readers list them, so keep them.
    // (read + write, never copyFileSync: copy_file_range on a sysfs file never reaches EOF)
    else if (posix.basename(real) === 'msi_irqs') writeFileSync(join(dst, rel), readFileSync(join(src, rel)));
  }
}

/** Copies one file (src's `real` to dst's `to`); false when it is left out (vanished, not readable by this user, or dropped). */
function copyFile(src: string, dst: string, real: string, opts: WriteOptions, to = real): boolean {
  let content: Buffer;
  try {
    content = readFileSync(join(src, real));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') opts.denied?.(to);
    return false; // vanished since it was read, or not ours to read: absent in the copy
  }
  const out = opts.transform ? opts.transform(to, content) : content;
  if (out === null) return false;
  makeDirs(dirname(join(dst, to)));
  writeFileSync(join(dst, to), out);
  return true;
}

/** A plain path's file, read where its links lead (inside src) and written at its own path. */
function copyPlain(src: string, dst: string, a: Access, opts: WriteOptions): boolean {
  if (a.kind !== 'file') return false;
  const real = resolvePath({ dir: src, isReal: false, label: src }, a.rel);
  const st = lstatSync(join(src, real), { throwIfNoEntry: false });
  return st?.isFile() === true && copyFile(src, dst, real, opts, a.rel);
}

/** Copies every recorded access from src into dst; returns the number of files written. */
export function writeSnapshotTree(
  src: string,
  dst: string,
  accesses: Iterable<Access>,
  opts: WriteOptions = {},
): number {
  let n = 0;
  for (const a of accesses) {
    if (opts.skip?.(a.rel)) continue;
    if (opts.plain?.(a.rel)) {
      if (copyPlain(src, dst, a, opts)) n++;
      continue;
    }
    if (a.kind === 'link') {
      const parent = mirrorPath(src, dst, posix.dirname(a.rel));
      const base = posix.basename(a.rel);
      const target = tryReadlink(join(src, parent, base));
      if (target !== null) makeLink(dst, parent === '.' || parent === '' ? base : `${parent}/${base}`, target);
      continue;
    }
    const real = mirrorPath(src, dst, a.rel);
    const st = lstatSync(join(src, real), { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) copyListing(src, dst, real, opts);
    else if (st.isFile() && copyFile(src, dst, real, opts)) n++;
  }
  return n;
}

/**
 * Packs a snapshot directory (its sys/, proc/ and manifest.json) into a .tar.gz at `file`, a path
 * the user named: made in memory (a snapshot is a few MB) and written by writeNamedFile.
 */
export async function createSnapshotArchive(dir: string, file: string): Promise<void> {
  const tar = await import('tar');
  const chunks: Buffer[] = [];
  for await (const c of tar.c({ cwd: dir, gzip: true, portable: true }, readdirSync(dir).sort()))
    chunks.push(c as Buffer);
  writeNamedFile(file, Buffer.concat(chunks));
}
