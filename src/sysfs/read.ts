// The only raw filesystem reads. Everything in src/sysfs goes through these, so "absent"
// (missing file, no permission) is decided in one place.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { posix } from 'node:path';
import type { AbsentReason } from '../model/fact.js';
import { rootPath, type SysRoot } from './root.js';

export type ReadResult = { ok: true; text: string } | { ok: false; reason: AbsentReason };

function reasonOf(e: unknown): AbsentReason | null {
  const code = (e as NodeJS.ErrnoException).code;
  // ENODEV/ENXIO/EINVAL: attributes with no value now (a NIC's speed while its link is down).
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENODEV' || code === 'ENXIO' || code === 'EINVAL') return 'missing';
  if (code === 'EACCES' || code === 'EPERM') return 'no-permission';
  // ESRCH: a /proc/PID file of a process that just exited reads as missing.
  if (code === 'ESRCH') return 'missing';
  return null;
}

/**
 * Reads a whole file. /proc and /sys files report a size of 0 or 4096 whatever their
 * content, so the size is never trusted: readFileSync reads until EOF.
 */
export function readFile(root: SysRoot, rel: string): ReadResult {
  root.onAccess?.('file', rel);
  if (root.tree) {
    const text = root.tree.readText(rel);
    return text !== null ? { ok: true, text } : { ok: false, reason: 'missing' };
  }
  try {
    return { ok: true, text: readFileSync(rootPath(root, rel), 'utf8') };
  } catch (e) {
    const reason = reasonOf(e);
    if (reason === null) throw e;
    return { ok: false, reason };
  }
}

/** Text of a file, or null when it is absent for any reason. */
export function readText(root: SysRoot, rel: string): string | null {
  const r = readFile(root, rel);
  return r.ok ? r.text : null;
}

/** Entries of a directory (sorted), or null when absent. */
export function listDir(root: SysRoot, rel: string): string[] | null {
  root.onAccess?.('dir', rel);
  if (root.tree) return root.tree.list(rel);
  try {
    return readdirSync(rootPath(root, rel)).sort();
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
  try {
    return readlinkSync(rootPath(root, rel));
  } catch (e) {
    if (reasonOf(e) === null) throw e;
    return null;
  }
}

/** Sorted numeric suffixes of entries named PREFIX<N> (node0, cpu12 ...). */
export function listNumbered(root: SysRoot, rel: string, prefix: string): number[] {
  const re = new RegExp(`^${prefix}(\\d+)$`);
  const ids: number[] = [];
  for (const name of listDir(root, rel) ?? []) {
    const m = re.exec(name);
    if (m) ids.push(Number(m[1]));
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
    if (++hops > 40) return next;
    const joined = target.startsWith('/') ? posix.normalize(target).slice(1) : posix.join(cur, target);
    // Re-walk the resolved target in case it contains further links.
    parts.splice(0, i + 1, ...joined.split('/').filter((p) => p !== ''));
    cur = '';
    i = -1;
  }
  return cur;
}
