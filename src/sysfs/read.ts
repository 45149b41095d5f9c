// The only raw filesystem reads. Everything in src/sysfs goes through these, so "absent"
// (missing file, no permission) and "unusable" (a directory, FIFO or device where a file
// belongs, a file over the size cap, a symlink loop) are decided in one place.
//
// A root that is not the running system (--root, --example) is a jail (src/sysfs/jail.ts): no
// read ever leaves it. A root held in memory (`tree`: a snapshot archive) is read through its
// MemTree, which resolves the same way.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { join, posix } from 'node:path';
import type { AbsentReason } from '../model/fact.js';
import { jailed, knownLink, MAX_LINK_HOPS, noteListing, rememberLink, underResolvedDir, walk } from './jail.js';
import type { MemTree } from './mem_tree.js';
import { rootPath, warn, type SysRoot } from './root.js';

export type ReadResult = { ok: true; text: string } | { ok: false; reason: AbsentReason };

/** No kernel file numakit reads comes near this (numa_maps of a process with 100k mappings is ~15 MiB). */
export const MAX_FILE_BYTES = 64 * 2 ** 20;
const CHUNK = 64 * 1024;
/** The smallest page Linux runs on: a kernel file's read returns at least this much unless at its end (wholeInOneRead). */
const SMALLEST_PAGE = 4096;

function reasonOf(e: unknown): AbsentReason | null {
  const code = (e as NodeJS.ErrnoException).code;
  // ENODEV/ENXIO/EINVAL/EIO/EOPNOTSUPP: attributes with no value now (a NIC's speed while its
  // link is down, a device attribute its driver does not implement). ESRCH: a /proc/PID file of
  // a process that just exited. ENAMETOOLONG: no such path can exist.
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENODEV' || code === 'ENXIO' || code === 'EINVAL')
    return 'missing';
  if (code === 'ESRCH' || code === 'EIO' || code === 'EOPNOTSUPP' || code === 'EAGAIN' || code === 'ENAMETOOLONG')
    return 'missing';
  if (code === 'EACCES' || code === 'EPERM') return 'no-permission';
  if (code === 'ELOOP') return 'unparseable';
  // seq_file (numa_maps, smaps, status ...) allocates its buffer at read time, charged to the
  // reader's memory cgroup (fs/seq_file.c, seq_buf_alloc: GFP_KERNEL_ACCOUNT): at its memory.max
  // the read fails with ENOMEM. The caller counts and says it; nothing is warned per path (a
  // daemon would keep one warning per process for ever).
  if (code === 'ENOMEM') return 'no-memory';
  return null;
}

/** A reason for an error, recording a warning when the path exists but cannot be used. */
function absentOf(root: SysRoot, rel: string, e: unknown): AbsentReason {
  const reason = reasonOf(e);
  if (reason === null) throw e;
  if (reason === 'unparseable') warn(root, { path: rel, line: null, problem: 'a symlink loop' });
  return reason;
}

/** What a symlink loop in a jail reads as: the kernel's own error for one (ELOOP). */
const loopError = (): Error => Object.assign(new Error('loop'), { code: 'ELOOP' });

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
/** How a file inside a jail is opened: never blocking, never following a link as its last component. */
export const JAIL_OPEN_FLAGS = OPEN_FLAGS | constants.O_NOFOLLOW;

/**
 * Opens a file for reading. Inside a jail, O_NOFOLLOW refuses a symlink as the last component
 * (ELOOP) without an lstat of every file; only then is the path resolved inside the root and
 * opened again, still with O_NOFOLLOW (a link that appears meanwhile is a loop, not followed).
 */
function openForRead(root: SysRoot, rel: string): number | 'loop' {
  if (root.isReal) return openSync(rootPath(root, rel), OPEN_FLAGS);
  const abs = underResolvedDir(root, rel);
  if (abs === 'loop') return 'loop';
  if (abs !== null) {
    try {
      return openSync(abs, JAIL_OPEN_FLAGS);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ELOOP') throw e;
    }
  }
  const resolved = walk(root, rel);
  return resolved === 'loop' ? 'loop' : openSync(resolved, JAIL_OPEN_FLAGS);
}

function kindOf(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a directory, not a file';
  if (st.isFIFO()) return 'a FIFO, not a file';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device, not a file';
  return 'not a regular file';
}

/** Every read goes through this one buffer (reads are synchronous): no 64 KiB allocation a file. */
const SCRATCH = Buffer.allocUnsafeSlow(CHUNK);

/** What the reads of an open file gave: its text, or why it is not used. */
type Content = { text: string } | { problem: string };

/**
 * Reads an open file to EOF as UTF-8. A file is classified (fstat) only when it does not read
 * like a regular file: when the first read returns nothing (an empty file, or a FIFO with no
 * writer, /dev/null) or fills the whole first chunk (a large file, or /dev/zero); a read that
 * fails is classified by the caller. With `shortIsWhole` (wholeInOneRead) a first read of less
 * than a page is the whole file: open, read, close, with no read that only finds EOF (a third of
 * the calls of each small file, thousands on a large machine). Else it is read on to EOF.
 */
function readAll(fd: number, shortIsWhole: boolean): Content {
  // The bound is a page, not the chunk: a sysfs binary attribute (the DMI table) gives at most a
  // page a read, so a read of a page may be a part of it.
  const full: Buffer[] = [];
  let filled = 0;
  for (let first = true; ; first = false) {
    const n = readSync(fd, SCRATCH, filled, CHUNK - filled, null);
    if (first && (n === 0 || n === CHUNK)) {
      const bad = kindOf(fstatSync(fd));
      if (bad !== null) return { problem: bad };
    }
    if (n === 0) break;
    if (first && shortIsWhole && n < SMALLEST_PAGE) return { text: SCRATCH.toString('utf8', 0, n) };
    filled += n;
    if (full.length * CHUNK + filled > MAX_FILE_BYTES)
      return { problem: `larger than ${MAX_FILE_BYTES / 2 ** 20} MiB` };
    if (filled < CHUNK) continue;
    full.push(Buffer.from(SCRATCH)); // a copy: SCRATCH is filled again
    filled = 0;
  }
  if (full.length === 0) return { text: SCRATCH.toString('utf8', 0, filled) };
  return { text: Buffer.concat([...full, SCRATCH.subarray(0, filled)]).toString('utf8') };
}

/**
 * Whether a read of less than a page is the whole file, by what the path is on a running
 * system: a sysfs attribute (kernfs: one value, at most a page, shown whole at the first read)
 * and the one-record procfs files (single_open: /proc/irq/N/*, /proc/PID/stat and status). A
 * procfs file of many records (numa_maps, /proc/vmstat, mountinfo: a seq_file returns what fits
 * its buffer and the rest at the next read), debugfs and cgroupfs (cgroup.procs is a list of
 * records) are read to EOF. The same paths in a capture are regular files, whole in one short
 * read too; a tree with a live /proc mounted inside it (a host's / under /host) reads as the
 * running system does.
 */
export function wholeInOneRead(rel: string): boolean {
  if (rel.startsWith('sys/')) return !rel.startsWith('sys/fs/') && !rel.startsWith('sys/kernel/debug/');
  return ONE_RECORD_PROC.test(rel);
}

const ONE_RECORD_PROC = /^proc\/(?:irq\/\d+\/[a-z_]+|\d+\/(?:stat|status))$/;

/** Why a read of an open file failed: what the file is when it is not a regular file, else the error's reason. */
function failedRead(root: SysRoot, rel: string, fd: number, e: unknown): ReadResult {
  let bad: string | null = null;
  try {
    bad = kindOf(fstatSync(fd));
  } catch {
    // the read's own error says more
  }
  if (bad === null) return { ok: false, reason: absentOf(root, rel, e) };
  warn(root, { path: rel, line: null, problem: bad });
  return { ok: false, reason: 'unparseable' };
}

/** A file of a snapshot held in memory (src/sysfs/mem_tree.ts): the same refusals as on disk. */
function readTreeFile(root: SysRoot, tree: MemTree, rel: string): ReadResult {
  const r = tree.lookup(rel);
  if (!r.ok) {
    if (r.reason === 'loop') warn(root, { path: rel, line: null, problem: 'a symlink loop' });
    return { ok: false, reason: r.reason === 'loop' ? 'unparseable' : 'missing' };
  }
  if (r.entry.kind !== 'file') {
    warn(root, { path: rel, line: null, problem: 'a directory, not a file' });
    return { ok: false, reason: 'unparseable' };
  }
  const text = tree.readText(rel)!;
  if (text.length > MAX_FILE_BYTES) {
    warn(root, { path: rel, line: null, problem: `larger than ${MAX_FILE_BYTES / 2 ** 20} MiB` });
    return { ok: false, reason: 'unparseable' };
  }
  return { ok: true, text };
}

/** The file opened for reading, or why it is absent (recorded as every reader here records it). */
function openOrAbsent(root: SysRoot, rel: string): number | { absent: AbsentReason } {
  let fd: number | 'loop';
  try {
    fd = openForRead(root, rel);
  } catch (e) {
    return { absent: absentOf(root, rel, e) };
  }
  return fd === 'loop' ? { absent: absentOf(root, rel, loopError()) } : fd;
}

/**
 * Reads a whole file. /proc and /sys files report a size of 0 or 4096 whatever their
 * content, so the size is never trusted: the file is read until EOF (at most MAX_FILE_BYTES).
 * The open never blocks (O_NONBLOCK: a FIFO at a read path is refused, not waited on), and
 * only regular files are read (procfs and sysfs files are regular; readAll says when a file
 * is looked at to tell).
 */
export function readFile(root: SysRoot, rel: string): ReadResult {
  root.onAccess?.('file', rel);
  if (root.tree) return readTreeFile(root, root.tree, rel);
  const fd = openOrAbsent(root, rel);
  if (typeof fd !== 'number') return { ok: false, reason: fd.absent };
  try {
    const c = readAll(fd, wholeInOneRead(rel));
    if ('text' in c) return { ok: true, text: c.text };
    warn(root, { path: rel, line: null, problem: c.problem });
    return { ok: false, reason: 'unparseable' };
  } catch (e) {
    return failedRead(root, rel, fd, e);
  } finally {
    closeSync(fd);
  }
}

/**
 * One read of a small file into `buf` for a caller that parses bytes (the process sampler's
 * /proc/PID/stat in a jail: 10,000 of them a pass on a large capture): the jail's resolution and
 * absent reasons as readFile's, no string. The bytes read (0 to buf.length: the caller decides
 * whether that is the whole file, and else reads it with readFile), or null when it is absent.
 */
export function readInto(root: SysRoot, rel: string, buf: Uint8Array): number | null {
  root.onAccess?.('file', rel);
  if (root.tree) {
    const r = readTreeFile(root, root.tree, rel);
    return r.ok ? Buffer.from(buf.buffer, buf.byteOffset, buf.length).write(r.text, 'utf8') : null;
  }
  const fd = openOrAbsent(root, rel);
  if (typeof fd !== 'number') return null;
  try {
    return readSync(fd, buf, 0, buf.length, 0);
  } catch (e) {
    const r = failedRead(root, rel, fd, e);
    return r.ok ? 0 : null;
  } finally {
    closeSync(fd);
  }
}

/** What readChunks gave: every chunk handed over, or why the file is absent. */
export type ChunksResult = { ok: true; bytes: number } | { ok: false; reason: AbsentReason };

/**
 * Reads a file in chunks without holding all of it: `take` gets bytes [0, n) of a buffer that is
 * filled again for the next chunk. For a file read often and used in part (/proc/interrupts is
 * IRQs x CPUs: 20 MB on 1,792 CPUs). The same refusals and absent reasons as readFile; an error
 * `take` throws is the caller's (the file is closed).
 */
export function readChunks(root: SysRoot, rel: string, take: (buf: Buffer, n: number) => void): ChunksResult {
  root.onAccess?.('file', rel);
  if (root.tree) {
    const r = readTreeFile(root, root.tree, rel);
    if (!r.ok) return r;
    const b = Buffer.from(r.text);
    take(b, b.length);
    return { ok: true, bytes: b.length };
  }
  const fd = openOrAbsent(root, rel);
  if (typeof fd !== 'number') return { ok: false, reason: fd.absent };
  try {
    let bytes = 0;
    for (let first = true; ; first = false) {
      let n: number;
      try {
        n = readSync(fd, SCRATCH, 0, CHUNK, null);
      } catch (e) {
        const r = failedRead(root, rel, fd, e);
        return r.ok ? { ok: true, bytes } : r;
      }
      // As readAll: a file is looked at only when its first read does not look like a regular file's.
      const bad = first && (n === 0 || n === CHUNK) ? kindOf(fstatSync(fd)) : null;
      const problem = bad ?? (bytes + n > MAX_FILE_BYTES ? `larger than ${MAX_FILE_BYTES / 2 ** 20} MiB` : null);
      if (problem !== null) {
        warn(root, { path: rel, line: null, problem });
        return { ok: false, reason: 'unparseable' };
      }
      if (n === 0) return { ok: true, bytes };
      bytes += n;
      take(SCRATCH, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Text of a file, or null when it is absent for any reason. */
export function readText(root: SysRoot, rel: string): string | null {
  const r = readFile(root, rel);
  return r.ok ? r.text : null;
}

/**
 * A directory's entries (`names`) and those that are directories, not links (`subdirs`, from the
 * listing's d_type), resolved inside the jail. In a jail what the listing showed is remembered:
 * its subdirectories need no lstat of their own when a file under one is read (the cpuN of cpu/,
 * the rx-N of queues/). Throws readdir's error (ELOOP for a link loop).
 */
function entriesOf(root: SysRoot, rel: string): { names: string[]; subdirs: string[] } {
  const path = jailed(root, rel);
  if (path === 'loop') throw loopError();
  const names: string[] = [];
  const subdirs: string[] = [];
  for (const d of readdirSync(path, { withFileTypes: true })) {
    names.push(d.name);
    if (d.isDirectory()) subdirs.push(d.name);
  }
  noteListing(root, rel, path, subdirs);
  return { names, subdirs };
}

/**
 * Before reading files in many subdirectories of `rel` (proc/irq/N: 1,024 IRQs): in a jail, one
 * listing resolves them all (a subdirectory the listing shows is not a link), where each would
 * cost an lstat at its first read. Nothing on the running system (no jail) or a snapshot held in memory.
 */
export function resolveSubdirs(root: SysRoot, rel: string): void {
  if (root.isReal || root.tree !== undefined || root.onAccess !== undefined) return;
  try {
    entriesOf(root, rel);
  } catch (e) {
    absentOf(root, rel, e); // absent: each read says so
  }
}

/** Entries of a directory (sorted), or null when absent. */
export function listDir(root: SysRoot, rel: string): string[] | null {
  root.onAccess?.('dir', rel);
  if (root.tree) return root.tree.list(rel);
  try {
    // The running system: names only (its links change with hot plug; nothing is remembered).
    return (root.isReal ? readdirSync(rootPath(root, rel)) : entriesOf(root, rel).names).sort();
  } catch (e) {
    absentOf(root, rel, e);
    return null;
  }
}

/**
 * Whether `rel` is a directory (through links, resolved inside a jail): a stat, where listing
 * it only to see that it is there would read its entries (a large machine's cpuN/topology).
 */
export function isDirectory(root: SysRoot, rel: string): boolean {
  root.onAccess?.('dir', rel);
  if (root.tree) {
    const r = root.tree.lookup(rel);
    return r.ok && r.entry.kind === 'dir';
  }
  try {
    // In a jail the directory part is resolved from the cache: one lstat tells, unless it is a link.
    const abs = root.isReal ? null : underResolvedDir(root, rel);
    const st = abs === null || abs === 'loop' ? undefined : lstatSync(abs, { throwIfNoEntry: false });
    if (abs !== null && abs !== 'loop' && st?.isSymbolicLink() !== true) return st?.isDirectory() === true;
    const path = root.isReal ? rootPath(root, rel) : jailed(root, rel);
    if (path === 'loop') throw loopError();
    return statSync(path).isDirectory();
  } catch (e) {
    absentOf(root, rel, e);
    return false;
  }
}

/** Subdirectories of a directory (sorted), or null when absent: cgroup trees, where files and children mix. */
export function listSubdirs(root: SysRoot, rel: string): string[] | null {
  root.onAccess?.('dir', rel);
  if (root.tree) {
    const tree = root.tree;
    return (
      tree.list(rel)?.filter((n) => {
        const r = tree.lookup(`${rel}/${n}`, false);
        return r.ok && r.entry.kind === 'dir';
      }) ?? null
    );
  }
  try {
    return entriesOf(root, rel).subdirs.sort();
  } catch (e) {
    if (reasonOf(e) === null) throw e;
    return null;
  }
}

/** Target of a symlink, or null. */
export function readLink(root: SysRoot, rel: string): string | null {
  root.onAccess?.('link', rel);
  if (root.tree) {
    const r = root.tree.lookup(rel, false);
    return r.ok && r.entry.kind === 'link' ? r.entry.target : null;
  }
  const known = knownLink(root, rel);
  if (known !== undefined) return known;
  const parent = jailed(root, posix.dirname(rel));
  try {
    if (parent === 'loop') throw loopError();
    const target = readlinkSync(join(parent, posix.basename(rel)));
    rememberLink(root, rel, target);
    return target;
  } catch (e) {
    // EINVAL: there, and not a link. resolvePath asks this of every component of a device's path.
    if ((e as NodeJS.ErrnoException).code === 'EINVAL') rememberLink(root, rel, null);
    absentOf(root, rel, e);
    return null;
  }
}

/**
 * Sorted numeric suffixes of entries named PREFIX<N> (node0, cpu12 ...), in the kernel's own
 * spelling only: "node01" beside "node1" is not a second node 1, and ids at or past `limit`
 * (the kernel's MAX_NUMNODES / NR_CPUS) are not ids.
 */
export function listNumbered(root: SysRoot, rel: string, prefix: string, limit = Number.MAX_SAFE_INTEGER): number[] {
  const re = new RegExp(`^${prefix}(0|[1-9]\\d{0,8})$`);
  const ids: number[] = [];
  for (const name of listDir(root, rel) ?? []) {
    const m = re.exec(name);
    if (m && Number(m[1]) < limit) ids.push(Number(m[1]));
  }
  return ids.sort((a, b) => a - b);
}

/**
 * Resolves the symlinks in a root-relative path, component by component, staying inside the
 * root (sysfs links are relative: class/net/eth0 -> ../../devices/pci0000:00/.../net/eth0).
 * Resolving by hand rather than with realpath keeps snapshots working: the links read are
 * recorded, and ".." is applied to real directories only.
 */
export function resolvePath(root: SysRoot, rel: string): string {
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  let cur = '';
  for (let hops = 0, i = 0; i < parts.length; i++) {
    const next = parts[i] === '..' ? posix.dirname(cur) : cur === '' ? parts[i]! : `${cur}/${parts[i]}`;
    const target = parts[i] === '..' ? null : readLink(root, next);
    if (target === null) {
      cur = next === '.' ? '' : next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return next;
    const joined = target.startsWith('/') ? posix.normalize(target).slice(1) : posix.join(cur, target);
    // Re-walk the resolved target in case it contains further links.
    parts.splice(0, i + 1, ...joined.split('/').filter((p) => p !== ''));
    cur = '';
    i = -1;
  }
  return cur;
}
