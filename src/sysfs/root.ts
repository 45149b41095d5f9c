// Where /sys and /proc are. Every reader takes a SysRoot first, so tests and snapshots
// can point it at a captured tree. Only the real "/" may ever be acted on (hwloc does the same:
// "binding only supported in real fsroot").
import { realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NumakitError } from '../model/errors.js';
import type { MemTree } from './mem_tree.js';
import type { ReadWarning, Warnings } from '../model/warnings.js';

export interface SysRoot {
  /** Absolute directory that plays the role of "/". */
  readonly dir: string;
  /** True only when dir is the running system's "/". */
  readonly isReal: boolean;
  /** A label for messages: "/" or the snapshot path or "example NAME". */
  readonly label: string;
  /** Called for every path read, listed or followed (snapshot uses it to record what to copy). */
  readonly onAccess?: (kind: 'file' | 'dir' | 'link', rel: string) => void;
  /** A snapshot held in memory (src/sysfs/mem_tree.ts): read through it, never the disk. */
  readonly tree?: MemTree;
  /** Where readers report files they could not use (main prints each once; --json carries them). */
  readonly warnings?: Warnings;
}

/** Reports a file that exists but could not be used; its fact is absent. */
export function warn(root: SysRoot, w: ReadWarning): void {
  root.warnings?.add(w);
}

export const REAL_ROOT: SysRoot = { dir: '/', isReal: true, label: '/' };

export function openRoot(dir: string, label?: string): SysRoot {
  let resolved: string;
  try {
    resolved = realpathSync(dir);
    if (!statSync(resolved).isDirectory()) throw new NumakitError(`--root ${dir}: not a directory`);
  } catch (e) {
    if (e instanceof NumakitError) throw e;
    throw new NumakitError(`--root ${dir}: no such directory`);
  }
  const isReal = resolved === '/';
  return { dir: resolved, isReal, label: label ?? (isReal ? '/' : resolved) };
}

/** A root over a snapshot held in memory; `dir` names it and is never opened. */
export function treeRoot(tree: MemTree, label: string): SysRoot {
  return { dir: `/nonexistent/numakit-snapshot/${label.replace(/[^\w.-]+/g, '_')}`, isReal: false, label, tree };
}

/** Absolute path of a root-relative path such as "sys/devices/system/node/online". */
export function rootPath(root: SysRoot, rel: string): string {
  return join(root.dir, rel);
}

/** Throws unless the root is the real system: used by every command that writes or binds. */
export function requireRealRoot(root: SysRoot, what: string): void {
  if (!root.isReal) {
    throw new NumakitError(`${what}: refusing to act on ${root.label}: it is a snapshot, not this running system`);
  }
}
