// Scratch copies of a shipped example machine for tests that break one file. Each copy lives
// under one temporary directory of this process, removed when the process exits.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_DIR } from '../../helpers/cli.js';

let base: string | null = null;
let n = 0;

/** A fresh copy of examples/NAME; `edit` changes it. */
export function scratchCopy(example: string, edit?: (dir: string) => void): string {
  if (base === null) {
    base = mkdtempSync(join(tmpdir(), 'numakit-harden-'));
    const dir = base;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const dir = join(base, `${example}-${n++}`);
  cpSync(join(REPO_DIR, 'examples', example), dir, { recursive: true, verbatimSymlinks: true });
  edit?.(dir);
  return dir;
}

/** Writes (or replaces) a file inside a tree. */
export function put(dir: string, rel: string, content: string | Buffer): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  rmSync(join(dir, rel), { recursive: true, force: true });
  writeFileSync(join(dir, rel), content);
}
