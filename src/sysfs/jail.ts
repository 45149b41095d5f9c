// A root that is not the running system (--root, --example) is a jail, like hwloc's fsroot:
// every symlink is resolved inside it (an absolute target is relative to the root, ".." stops
// at the root), so no read ever leaves it and no message quotes a file outside it.
//
// What is known about a jail's tree is kept per root (a snapshot does not change while a
// command reads it): each directory resolved (one lstat the first time a file under it is
// read, none for the directories a listing already said are directories, not links) and each
// link read. The running system ("/") has no jail and no cache: its links change (hot plug).
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { SysRoot } from './root.js';

export const MAX_LINK_HOPS = 40; // the kernel's own limit (MAXSYMLINKS)

interface Known {
  /** Root-relative directory -> its absolute path resolved inside the root, or 'loop'. */
  readonly dirs: Map<string, string | 'loop'>;
  /**
   * Listed directory -> where it was resolved and the names its listings showed as directories:
   * such a subdirectory is put in `dirs` at its first use, not at the listing (proc/ lists 10,000
   * pids; a command may use a few of a listing's subdirectories).
   */
  readonly noted: Map<string, { readonly abs: string; readonly names: Set<string> }>;
  /** Root-relative path -> the target of the link there, or null (not a link, or absent). */
  readonly links: Map<string, string | null>;
}

const KNOWN = new WeakMap<SysRoot, Known>();

function knownOf(root: SysRoot): Known {
  let k = KNOWN.get(root);
  if (k === undefined) KNOWN.set(root, (k = { dirs: new Map(), noted: new Map(), links: new Map() }));
  return k;
}

/** A path of plain names: no "", "." or ".." component, no leading or trailing "/". */
function isPlain(rel: string): boolean {
  return (
    rel !== '' && !rel.startsWith('/') && !rel.endsWith('/') && !rel.includes('//') && !/(^|\/)\.\.?(\/|$)/.test(rel)
  );
}

/**
 * The absolute path of `rel` with its directory part resolved inside the root (from the
 * per-root cache) and its last component as it is; null when the whole path must be walked.
 */
export function underResolvedDir(root: SysRoot, rel: string): string | 'loop' | null {
  const slash = rel.lastIndexOf('/');
  if (slash <= 0) return null;
  const dir = rel.slice(0, slash);
  const base = rel.slice(slash + 1);
  const k = knownOf(root);
  const dirs = k.dirs;
  // A directory a listing showed is looked up there (not copied into `dirs`: proc/PID/stat is
  // read once a pass for each of 10,000 pids).
  let parent = dirs.get(dir) ?? listedSubdir(k, dir);
  if (parent === null) {
    if (!isPlain(rel)) return null;
    dirs.set(dir, (parent = jailed(root, dir)));
  } else if (base === '' || base === '.' || base === '..') {
    return null; // a known directory is a plain path: only the last component needs a look
  }
  return parent === 'loop' ? 'loop' : `${parent}/${base}`;
}

/**
 * The absolute path of `rel` with its symlinks resolved inside the root; 'loop' past 40 links.
 * The directory part comes from the per-root cache, so a path costs one lstat more than on "/".
 */
export function jailed(root: SysRoot, rel: string): string | 'loop' {
  if (root.isReal) return join(root.dir, rel);
  const abs = underResolvedDir(root, rel);
  if (abs === null) return walk(root, rel);
  if (abs === 'loop') return 'loop';
  try {
    if (!lstatSync(abs).isSymbolicLink()) return abs;
  } catch {
    return abs; // missing: the caller's own call says so
  }
  return walk(root, rel);
}

/**
 * Resolves every component of `rel` inside the root. Paths are put together as strings, never
 * normalized: a ".." left after a component that is missing goes to the kernel as it is (and
 * fails there), so "missing/../link/x" can never become "link/x" and follow a link out.
 */
export function walk(root: SysRoot, rel: string): string | 'loop' {
  const todo = rel.split('/').filter((p) => p !== '' && p !== '.');
  const done: string[] = [];
  let cur = root.dir; // root.dir joined with done
  for (let hops = 0; todo.length > 0; ) {
    const part = todo.shift()!;
    if (part === '..') {
      done.pop(); // ".." of the root is the root
      cur = done.length === 0 ? root.dir : `${root.dir}/${done.join('/')}`;
      continue;
    }
    const abs = `${cur}/${part}`;
    let target: string | null = null;
    try {
      if (lstatSync(abs).isSymbolicLink()) target = readlinkSync(abs);
    } catch {
      return todo.length === 0 ? abs : `${abs}/${todo.join('/')}`; // missing: the caller's own call says so
    }
    if (target === null) {
      done.push(part);
      cur = abs;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return 'loop';
    if (target.startsWith('/')) {
      done.length = 0;
      cur = root.dir;
    }
    todo.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
  }
  return cur;
}

/**
 * Records what a listing of the directory `rel` (resolved to `abs`) showed: its entries that
 * are directories (d_type, not links) are resolved without an lstat of their own, at their
 * first use (listedSubdir).
 */
export function noteListing(root: SysRoot, rel: string, abs: string, subdirs: readonly string[]): void {
  if (root.isReal || !isPlain(rel)) return;
  const k = knownOf(root);
  const noted = k.noted.get(rel);
  if (noted?.abs !== abs) k.noted.set(rel, { abs, names: new Set(subdirs) });
  // A directory listed again (proc/ at every pass of the agent and scrape of serve): what an
  // earlier listing showed stays known, as a resolved directory does.
  else for (const name of subdirs) noted.names.add(name);
}

/**
 * The absolute path of `dir`/`name` when the last listing of the plain directory `dir` in this
 * jail showed `name` as a directory (not a link), else null: no string but the path, no lookup
 * of the whole path (the process sampler's proc/PID, 10,000 a pass).
 */
export function listedChild(root: SysRoot, dir: string, name: string): string | null {
  return root.isReal ? null : childOf(KNOWN.get(root), dir, name);
}

/** The absolute path of the plain directory `dir` when a listing of its parent showed it as a directory, else null. */
function listedSubdir(k: Known, dir: string): string | null {
  const slash = dir.lastIndexOf('/');
  return slash <= 0 ? null : childOf(k, dir.slice(0, slash), dir.slice(slash + 1));
}

/** `dir`/`name` resolved when the last listing of `dir` showed `name` as a directory, else null. */
function childOf(k: Known | undefined, dir: string, name: string): string | null {
  const noted = k?.noted.get(dir);
  return noted?.names.has(name) === true ? `${noted.abs}/${name}` : null;
}

/** The link at `rel` as read before in this jail: its target, null (not a link), or undefined (not read yet, or on "/"). */
export function knownLink(root: SysRoot, rel: string): string | null | undefined {
  return root.isReal ? undefined : KNOWN.get(root)?.links.get(rel);
}

/**
 * Remembers what `rel` is: a link to `target`, or null for an entry that exists and is not a link
 * (an absent one is not remembered: a test or a capture may still create it).
 */
export function rememberLink(root: SysRoot, rel: string, target: string | null): void {
  if (!root.isReal) knownOf(root).links.set(rel, target);
}
