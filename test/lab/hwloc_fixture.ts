// node --import tsx test/lab/hwloc_fixture.ts CAPTURE OUT
// Cuts a lab capture (npm run capture) down to the files hwloc's lstopo and numakit's topo views
// read of it, for the unit suite's hwloc oracle (test/fixtures/hwloc-lab/): both programs run
// under strace, every file they open, list or stat inside the capture is kept (symbolic links
// as links, with what they point to), and the cut tree must give both programs the same output
// as the whole capture, else nothing is written. Needs strace, lstopo-no-graphics and a build.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { REPO_ROOT } from './setup.js';

const NUMAKIT_CJS = join(REPO_ROOT, 'dist/cli/numakit.cjs');
const VIEWS = [['--xml'], [], ['--json'], ['--only', 'pu'], ['--svg', '-']];

function runs(root: string): [string, string[]][] {
  return [
    ['lstopo-no-graphics', ['--input', root, '--of', 'xml']],
    ['lstopo-no-graphics', ['--input', root, '--of', 'console']],
    ...VIEWS.map((v): [string, string[]] => [process.execPath, [NUMAKIT_CJS, '--root', root, 'topo', ...v]]),
  ];
}

/** The paths (inside `root`) each run opens, lists or stats, from strace's log. */
function tracedPaths(root: string): Set<string> {
  const log = join(mkdtempSync(join(tmpdir(), 'hwloc-fixture-')), 'trace');
  const out = new Set<string>();
  for (const [cmd, args] of runs(root)) {
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=%file,%desc', '-o', log, cmd, ...args], {
      encoding: 'utf8',
      env: { ...process.env, HWLOC_COMPONENTS: '' },
    });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
    for (const m of readFileSync(log, 'utf8').matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
      const p = m[1]!;
      const abs = isAbsolute(p) ? p : join(root, p);
      const rel = relative(root, abs);
      if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) out.add(rel);
    }
  }
  rmSync(dirname(log), { recursive: true, force: true });
  return out;
}

/** Copies `rel` from `src` to `dst`: each symbolic link on its way as a link, the file it ends at. */
function keep(src: string, dst: string, rel: string): void {
  const parts = rel.split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const p = parts.slice(0, i).join(sep);
    const from = join(src, p);
    if (!existsSync(from) && !isLink(from)) return;
    if (isLink(from)) {
      const to = join(dst, p);
      if (!isLink(to)) {
        mkdirSync(dirname(to), { recursive: true });
        symlinkSync(readlinkSync(from), to);
      }
      // A link to what the capture does not hold (net/lo) stays a dangling link, as captured.
      if (!existsSync(from)) return;
      const target = relative(src, realpathSync(from));
      if (target.startsWith('..')) return;
      keep(src, dst, join(target, ...parts.slice(i)));
      return;
    }
  }
  const from = join(src, rel);
  const to = join(dst, rel);
  if (!lstatSync(from).isDirectory()) {
    if (!existsSync(to)) cpSync(from, to);
    return;
  }
  mkdirSync(to, { recursive: true });
  // The links a listed directory holds (access1/initiators/nodeN): strace shows no listed names.
  for (const e of readdirSync(from, { withFileTypes: true }))
    if (e.isSymbolicLink() && !isLink(join(to, e.name)))
      symlinkSync(readlinkSync(join(from, e.name)), join(to, e.name));
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function outputs(root: string): string[] {
  return runs(root).map(([cmd, args]) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, HWLOC_COMPONENTS: '' } });
    return `${r.status}\n${r.stdout.replaceAll(root, 'ROOT')}`;
  });
}

function main(argv: readonly string[]): number {
  const [capture, out] = argv.map((a) => resolve(a));
  if (capture === undefined || out === undefined) {
    console.error('usage: node --import tsx test/lab/hwloc_fixture.ts CAPTURE OUT');
    return 2;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'hwloc-fixture-out-'));
  for (const rel of tracedPaths(capture)) keep(capture, tmp, rel);
  const manifest = JSON.parse(readFileSync(join(capture, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  const want = outputs(capture);
  const got = outputs(tmp);
  const bad = got.findIndex((g, i) => g !== want[i]);
  if (bad >= 0) {
    const [cmd, args] = runs(tmp)[bad]!;
    console.error(`the cut tree reads differently: ${cmd} ${args.join(' ')}`);
    rmSync(tmp, { recursive: true, force: true });
    return 1;
  }
  writeFileSync(
    join(tmp, 'manifest.json'),
    `${JSON.stringify(
      {
        ...manifest,
        files: undefined,
        trimmed:
          'only the files lstopo and numakit topo read of the capture (test/lab/hwloc_fixture.ts); they read it as the whole capture',
      },
      null,
      2,
    )}\n`,
  );
  rmSync(out, { recursive: true, force: true });
  mkdirSync(dirname(out), { recursive: true });
  cpSync(tmp, out, { recursive: true, verbatimSymlinks: true });
  rmSync(tmp, { recursive: true, force: true });
  console.error(`hwloc_fixture: wrote ${relative(process.cwd(), out)}`);
  return 0;
}

process.exit(main(process.argv.slice(2)));
