// The numakit container image's content, built without a container engine: the steps of
// deploy/kubernetes/Containerfile done in a directory. The build stage's COPY lines are the
// build context (so a file the build needs and the Containerfile forgets fails here); the
// repository's node_modules stands in for `npm ci`; `npm pack` makes the package; the final
// stage's `npm install --global --omit=dev` installs it under ROOT/usr/local, as in the image.
// Used by test/package/image.dist.test.ts and the Kubernetes lab test.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_DIR } from './cli.js';

export const CONTAINERFILE = join(REPO_DIR, 'deploy', 'kubernetes', 'Containerfile');

export interface Stage {
  readonly from: string;
  readonly name: string | null;
  /** [sources..., destination] of each COPY without --from. */
  readonly copies: string[][];
  readonly runs: string[];
  readonly user: string | null;
}

/** The Containerfile's stages: FROM, COPY, RUN (continuation lines joined) and USER. */
export function parseContainerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: { from: string; name: string | null; copies: string[][]; runs: string[]; user: string | null }[] = [];
  for (const l of lines) {
    const [op, ...rest] = l.split(/\s+/);
    const cur = stages.at(-1);
    if (op === 'FROM')
      stages.push({ from: rest[0]!, name: rest[1] === 'AS' ? rest[2]! : null, copies: [], runs: [], user: null });
    else if (op === 'COPY' && cur && !rest[0]!.startsWith('--from')) cur.copies.push(rest);
    else if (op === 'RUN' && cur) cur.runs.push(rest.join(' '));
    else if (op === 'USER' && cur) cur.user = rest[0]!;
  }
  return stages;
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
}

/** Builds the image's file layout under `dir`; returns the root and the installed command. */
export function buildImageLayout(dir: string): { root: string; bin: string; stages: Stage[] } {
  const stages = parseContainerfile(readFileSync(CONTAINERFILE, 'utf8'));
  const [build] = stages;
  const ctx = join(dir, 'build');
  mkdirSync(ctx, { recursive: true });
  for (const c of build!.copies) {
    const dest = c.at(-1)!;
    for (const src of c.slice(0, -1)) {
      const target = dest.endsWith('/') ? join(ctx, dest, src.split('/').pop()!) : join(ctx, dest);
      cpSync(join(REPO_DIR, src), target, { recursive: true });
    }
  }
  symlinkSync(join(REPO_DIR, 'node_modules'), join(ctx, 'node_modules'));
  run('npm', ['run', 'build'], ctx);
  const pkgDir = join(dir, 'pkg');
  mkdirSync(pkgDir);
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', pkgDir], ctx);
  const tgz = readdirSync(pkgDir).find((f) => f.endsWith('.tgz'))!;
  const root = join(dir, 'rootfs');
  run(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      join(root, 'usr', 'local'),
      '--omit=dev',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(pkgDir, tgz),
    ],
    dir,
  );
  return { root, bin: join(root, 'usr', 'local', 'bin', 'numakit'), stages };
}
