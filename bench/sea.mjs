#!/usr/bin/env node
// The single executable: its size, and its start-up against the npm package's (node
// dist/cli/bin.js) and bare Node, with and without V8's code cache in the blob, and with a V8
// startup snapshot instead (every command module evaluated at build time; not shipped). Builds the
// three variants into a temporary directory (about 30 s), then runs bench/startup-all.mjs on each.
//   node bench/sea.mjs [--runs N]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const runsAt = process.argv.indexOf('--runs');
const runs = runsAt > 0 ? process.argv[runsAt + 1] : '10';
const only = 'version,topo,stat,doctor,overview,run --hardware';
const dir = mkdtempSync(join(tmpdir(), 'numakit-sea-bench-'));
try {
  const variants = [];
  for (const [name, flags] of [
    ['code cache', []],
    ['no code cache', ['--no-code-cache']],
    ['startup snapshot', ['--snapshot']],
  ]) {
    const out = join(dir, name.replace(/ /g, '-'));
    execFileSync(process.execPath, [join(repo, 'scripts', 'build-sea.mjs'), '--out', out, ...flags], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exe = join(out, `numakit-linux-${process.arch}`);
    variants.push({ name, exe });
    console.log(
      `single executable, ${name}: ${(statSync(exe).size / 2 ** 20).toFixed(1)} MiB (the Node binary is ${(statSync(process.execPath).size / 2 ** 20).toFixed(1)} MiB)`,
    );
  }
  // The unbundled npm build alone; then the code cache against each other variant in the same rounds.
  const [cached, ...others] = variants.map((v) => v.exe);
  for (const args of [
    ['--bin', join(repo, 'dist', 'cli', 'bin.js')],
    ...others.map((o) => ['--bin', cached, '--compare', o]),
  ]) {
    console.log('');
    spawnSync(process.execPath, [join(repo, 'bench', 'startup-all.mjs'), '--runs', runs, '--only', only, ...args], {
      stdio: 'inherit',
      env: { ...process.env, NUMAKIT_CACHE_DIR: join(dir, 'cache') },
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
