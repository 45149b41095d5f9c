// The files a fleet report reads: each FILE given, and under each DIR (recursively) every
// snapshot (.tar.gz, .tgz) and doctor --json (.json). A DIR with none is a problem named in
// one line, as is a path that does not exist; the other inputs are still read.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { InputProblem } from '../model/fleet.js';
import { inputKind } from './host.js';
import { reasonOf } from '../runtime/named_file.js';

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && inputKind(e.name) !== null) out.push(p);
  }
}

export function listFleetInputs(paths: readonly string[]): { files: string[]; problems: InputProblem[] } {
  const files: string[] = [];
  const problems: InputProblem[] = [];
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      problems.push({
        input: p,
        message: `${p}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
      });
      continue;
    }
    if (!isDir) {
      files.push(p);
      continue;
    }
    const found: string[] = [];
    try {
      walk(p, found);
    } catch (e) {
      problems.push({
        input: p,
        message: `${p}: cannot list (${reasonOf(e)})`,
      });
      continue;
    }
    if (found.length === 0)
      problems.push({ input: p, message: `${p}: no snapshots (.tar.gz) or doctor --json files (.json) in it` });
    files.push(...found.sort());
  }
  return { files: [...new Set(files)], problems };
}
