// Running numakit as another (unprivileged) user from a test that runs as root. The repository
// may sit where that user cannot read it (a clone under /root is 0700), so the built CLI is
// staged in a directory of its own under os.tmpdir(): package.json, dist/, examples/ and the
// runtime dependencies, hard-linked (copied across file systems), readable by everyone.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** nobody:nogroup on Debian. */
export const NOBODY = 65534;

function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(from)) {
    const a = join(from, name);
    const b = join(to, name);
    const st = lstatSync(a);
    if (st.isSymbolicLink()) symlinkSync(readlinkSync(a), b);
    else if (st.isDirectory()) linkTree(a, b);
    else {
      try {
        linkSync(a, b);
      } catch {
        copyFileSync(a, b);
      }
      chmodSync(b, statSync(a).mode | 0o444);
    }
  }
  chmodSync(to, 0o755);
}

/** The runtime dependencies of the package, transitively (a flat, hoisted node_modules). */
function runtimePackages(repo: string): string[] {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      if (seen.has(name) || !existsSync(join(repo, 'node_modules', name, 'package.json'))) continue;
      seen.add(name);
      visit(join(repo, 'node_modules', name));
    }
  };
  visit(repo);
  return [...seen];
}

export interface Staged {
  /** The CLI's entry (dist/cli/bin.js) in the staged copy. */
  readonly bin: string;
  /** A directory the other user owns, for outputs (snapshot, plan --out). */
  readonly home: string;
  remove(): void;
}

/** Stages the built CLI (run `npm run build` first: npm test does). */
export function stageCli(repo: string): Staged {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-other-user-'));
  chmodSync(dir, 0o755);
  const pkg = join(dir, 'numakit');
  linkTree(join(repo, 'dist'), join(pkg, 'dist'));
  if (existsSync(join(repo, 'examples'))) linkTree(join(repo, 'examples'), join(pkg, 'examples'));
  for (const name of runtimePackages(repo)) linkTree(join(repo, 'node_modules', name), join(pkg, 'node_modules', name));
  copyFileSync(join(repo, 'package.json'), join(pkg, 'package.json'));
  chmodSync(join(pkg, 'package.json'), 0o644);
  for (const d of [pkg, join(pkg, 'node_modules')]) if (existsSync(d)) chmodSync(d, 0o755);
  if (existsSync(join(pkg, 'node_modules', '@koromix'))) chmodSync(join(pkg, 'node_modules', '@koromix'), 0o755);
  const home = join(dir, 'home');
  mkdirSync(home, { mode: 0o755 });
  return { bin: join(pkg, 'dist', 'cli', 'bin.js'), home, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface AsUser {
  readonly code: number | null;
  readonly signal: string | null;
  readonly out: string;
  readonly err: string;
}

export interface AsUserOptions {
  readonly cwd: string;
  /** Kill after this long (ms); SIGTERM first. */
  readonly timeoutMs?: number;
  /** Resolves when stdout has printed this (then SIGTERM is sent: daemons). */
  readonly untilOut?: RegExp;
}

/** Runs `node BIN ARGS` as uid/gid 65534 with no supplementary groups (setpriv, util-linux). */
export function runAsNobody(bin: string, args: readonly string[], opts: AsUserOptions): Promise<AsUser> {
  const p = spawn(
    'setpriv',
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, bin, ...args],
    {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
  p.stdout.on('data', (d) => {
    out += d;
    if (opts.untilOut?.test(out)) p.kill('SIGTERM');
  });
  p.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) =>
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    }),
  );
}
