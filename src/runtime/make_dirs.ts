// mkdir -p without Node's recursive mkdir, which never returns under /proc (libuv retries the
// ENOENT that procfs gives for a new name forever: `snapshot /proc/x` and `plan --out /proc/x`
// hung). Each missing component is made in turn; an error names the directory it stopped at.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { NumakitError } from '../model/errors.js';

/** Makes `dir` and its missing parents; throws a NumakitError naming the one that fails. */
export function makeDirs(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    const st = statSync(d, { throwIfNoEntry: false });
    if (st?.isDirectory()) break;
    if (st) throw new NumakitError(`${d}: not a directory`);
    if (dirname(d) === d) break;
    missing.unshift(d);
  }
  for (const d of missing) {
    try {
      mkdirSync(d, mode === undefined ? {} : { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statSync(d).isDirectory()) continue;
      const code = (e as NodeJS.ErrnoException).code;
      // The errno stays on the error (stateDirError turns EACCES/EROFS into what to do).
      throw Object.assign(new NumakitError(`cannot create ${d}: ${code ?? (e as Error).message}`), { code });
    }
  }
}
