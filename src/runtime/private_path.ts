// Paths numakit trusts when it runs as root in shared places. A state directory another user can
// write (or reach through a symlink another user owns) could be handed a journal that rollback
// then obeys; a native module in such a cache could be swapped before it loads; a token file
// others can read is no secret. One rule for all of them (the journal lock, the SEA cache, the
// token and web-config files): every component of the path, symlinks followed, must be owned by
// root or this user, and a directory writable by others only with the sticky bit (/tmp), whose
// entries only their owners can replace. OpenSSH's safe_path() checks key files the same way.
import { lstatSync, readlinkSync, type Stats, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NumakitError } from '../model/errors.js';
import { makeDirs } from './make_dirs.js';

const MAX_LINKS = 40;

/** A path refused because another user could change it (one line, exit 1). */
export class UnsafePathError extends NumakitError {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

const myUid = (): number => process.getuid?.() ?? 0;
const myGid = (): number => process.getgid?.() ?? 0;
const trustedUid = (uid: number): boolean => uid === 0 || uid === myUid();

/** Why another user could replace what is under a component, or null. */
function controlledBy(st: Stats): string | null {
  if (!trustedUid(st.uid)) return `owned by uid ${st.uid}`;
  if (st.isSymbolicLink() || !st.isDirectory() || (st.mode & 0o1000) !== 0) return null;
  if ((st.mode & 0o002) !== 0) return 'writable by every user';
  if ((st.mode & 0o020) !== 0 && st.gid !== 0 && st.gid !== myGid()) return `writable by group ${st.gid}`;
  return null;
}

/**
 * Walks `path` from / (symlinks followed) and throws when a component exists that another user
 * controls. Components that do not exist yet end the walk: the caller creates them.
 */
export function checkNoOtherWriter(path: string, what: string): void {
  let todo = resolve(path)
    .split('/')
    .filter((c) => c !== '');
  let cur = '/';
  let links = 0;
  const refuse = (at: string, why: string) =>
    new UnsafePathError(`${what} ${path}: ${at} is ${why}; another user could change what numakit trusts there`);
  const rootWhy = controlledBy(lstatSync('/'));
  if (rootWhy !== null) throw refuse('/', rootWhy);
  while (todo.length > 0) {
    const next = join(cur, todo.shift()!);
    const st = lstatSync(next, { throwIfNoEntry: false });
    if (st === undefined) return;
    const why = controlledBy(st);
    if (why !== null) throw refuse(st.isSymbolicLink() ? `the symlink ${next}` : next, why);
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new NumakitError(`${what} ${path}: too many symlinks`);
      todo = [
        ...resolve(cur, readlinkSync(next))
          .split('/')
          .filter((c) => c !== ''),
        ...todo,
      ];
      cur = '/';
    } else cur = next;
  }
}

/**
 * Makes `dir` (missing parts 0700) and checks that only root or this user can change it: the
 * directory itself is owned by root or this user and writable by no one else, and no component
 * on the way is another user's (checkNoOtherWriter).
 */
export function ensurePrivateDir(dir: string, what: string): void {
  checkNoOtherWriter(dir, what);
  makeDirs(dir, 0o700);
  checkNoOtherWriter(dir, what);
  const st = statSync(dir);
  if (!st.isDirectory()) throw new NumakitError(`${what} ${dir}: not a directory`);
  if (!trustedUid(st.uid) || (st.mode & 0o022) !== 0) {
    throw new UnsafePathError(
      `${what} ${dir}: must be owned by root or you and writable by no one else (it is uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8)}; chmod go-w)`,
    );
  }
}

/**
 * Checks a file that holds a secret (a bearer token, a web config with keys) before it is read:
 * a regular file owned by root or this user, not readable by every user and not writable by
 * anyone else (group-readable is allowed: a root-owned 0640 file a service's group reads), on a
 * path no other user controls. Returns its size.
 */
export function checkSecretFile(path: string, what: string): number {
  checkNoOtherWriter(path, what);
  const st = statSync(path);
  if (!st.isFile()) throw new NumakitError(`${what} ${path}: not a regular file`);
  if (!trustedUid(st.uid)) throw new UnsafePathError(`${what} ${path}: owned by uid ${st.uid}, not by root or you`);
  if ((st.mode & 0o026) !== 0) {
    throw new UnsafePathError(
      `${what} ${path}: readable or writable by other users (mode ${(st.mode & 0o7777).toString(8)}): chmod 600 it (or 640 for a service's group)`,
    );
  }
  return st.size;
}
