// Where --persist DIR writes. Nothing goes to /etc (or below it) without --yes; a scratch
// directory is written at once so the files can be reviewed before anyone installs them.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { PersistFileText } from '../render/changes_persist.js';
import type { PersistFile } from './apply.js';
import { atomicWrite } from './atomic_write.js';

/** The real path of DIR (or of its nearest existing ancestor, plus the rest). */
function realish(dir: string): string {
  let cur = resolve(dir);
  const rest: string[] = [];
  while (!existsSync(cur) && dirname(cur) !== cur) {
    rest.unshift(cur.slice(dirname(cur).length + 1));
    cur = dirname(cur);
  }
  return join(realpathSync(cur), ...rest);
}

/** True when DIR is /etc or inside it (after following links). */
export function isSystemConfigDir(dir: string): boolean {
  const p = realish(dir);
  return p === '/etc' || p.startsWith('/etc/');
}

/**
 * The tuned profile among the files that tuned itself will find: DIR is /etc, so the profile lands
 * in /etc/tuned/NAME/tuned.conf. Undefined otherwise (a review directory, or no profile).
 */
export function tunedProfileIn(dir: string, files: readonly PersistFileText[]): string | undefined {
  if (realish(dir) !== '/etc') return undefined;
  for (const f of files) {
    const m = /^tuned\/([^/]+)\/tuned\.conf$/.exec(f.path);
    if (m) return m[1];
  }
  return undefined;
}

export function persistFiles(dir: string, files: readonly PersistFileText[]): PersistFile[] {
  const base = realish(dir);
  return files.map((f) => ({
    path: join(base, f.path),
    text: f.text,
    ...(f.mode === undefined ? {} : { mode: f.mode }),
  }));
}

/** Writes files now, without journaling (a review directory outside /etc). */
export function writePersistFiles(files: readonly PersistFile[]): void {
  for (const f of files) atomicWrite(f.path, f.text, f.mode);
}
