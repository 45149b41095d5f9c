#!/usr/bin/env node
// The floor of issue 27's one-shot goals on the large capture: what a bare Node loop costs that
// opens and reads exactly the files a command reads (the paths under the capture that strace saw
// it open: files read whole with readFileSync, directories listed with readdirSync), measured in
// the same rounds as the command and `node -e 0`, in CPU time (user + system) over `node -e 0`.
// That loop has no parsing, no rendering and no module loading: a command can come close to it,
// not under it, without reading fewer files. For stat -p, numastat -p on the same tree is timed
// too (in a private mount namespace, as bench/scale.mjs does; needs root, unshare, numastat).
//   npm run build && node bench/scale-floor-commands.mjs --captures DIR [--rounds 3] [--commands doctor,procs,p]
// DIR holds large/ (scripts/gen-scale-capture.ts; bench/scale.mjs --captures DIR makes it).
// Needs strace (Debian: strace): skipped with a line without it. Not a timed test.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    captures: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    commands: { type: 'string', default: 'doctor,procs,p' },
  },
  strict: true,
});
if (values.captures === undefined) {
  console.error('scale-floor: --captures DIR is required (the directory holding large/)');
  process.exit(2);
}
const large = join(values.captures, 'large');
const repo = fileURLToPath(new URL('..', import.meta.url));
const bin = join(repo, 'dist/cli/numakit.cjs');
const rounds = Number(values.rounds);
const COMMANDS = {
  doctor: ['doctor', '--json'],
  procs: ['stat', '--procs', '--json'],
  p: ['stat', '-p', 'java'],
};
if (spawnSync('strace', ['-V']).status !== 0) {
  console.log('scale-floor: skipped: needs strace (Debian: strace) to see which files a command opens');
  process.exit(0);
}
const tmp = mkdtempSync(join(tmpdir(), 'numakit-scale-floor-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// CPU of a process at exit (us), written by a preloaded hook (as bench/scale.mjs does).
const PRELOAD = join(tmp, 'cpu.cjs');
writeFileSync(
  PRELOAD,
  "const f = process.env.FLOOR_CPU; if (f) process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').appendFileSync(f, (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n",
);
/** CPU ms of one run of node [PRELOAD] ARGS. */
function cpu(args) {
  const f = join(tmp, `cpu-${process.hrtime.bigint()}`);
  const r = spawnSync(process.execPath, ['--require', PRELOAD, ...args], {
    stdio: 'ignore',
    env: { ...process.env, FLOOR_CPU: f },
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}`);
  const us = Number(readFileSync(f, 'utf8').trim());
  rmSync(f);
  return us / 1000;
}

/** The files and directories under the capture a command opens (strace, every thread). */
function opened(args) {
  const log = join(tmp, 'strace.log');
  execFileSync(
    'strace',
    ['-f', '-qq', '-e', 'trace=openat', '-o', log, process.execPath, bin, '--root', large, ...args],
    {
      stdio: 'ignore',
    },
  );
  const out = [];
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const m = /openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+)[^)]*\) = (\d+)/.exec(line);
    if (m?.[1].startsWith(`${large}/`)) out.push({ path: m[1], dir: m[2].includes('O_DIRECTORY') });
  }
  return out;
}

// The bare loop: each path opened and read (or listed) the way Node reads it, nothing else.
const LOOP = join(tmp, 'loop.mjs');
writeFileSync(
  LOOP,
  `import { readFileSync, readdirSync } from 'node:fs';
const list = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const { path, dir } of list) { try { dir ? readdirSync(path) : readFileSync(path); } catch {} }
`,
);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadavg()[0].toFixed(1);
console.log(`scale-floor: ${rounds} rounds, CPU ms over \`node -e 0\`, median; load ${load()}`);
for (const name of values.commands.split(',')) {
  const args = COMMANDS[name];
  if (args === undefined) throw new Error(`unknown command ${name}: one of ${Object.keys(COMMANDS).join(', ')}`);
  const files = opened(args);
  const listFile = join(tmp, `${name}.json`);
  writeFileSync(listFile, JSON.stringify(files));
  const cmd = [];
  const floor = [];
  for (let r = 0; r < rounds; r++) {
    const bare = cpu(['-e', '0']);
    cmd.push(cpu([bin, '--root', large, ...args]) - bare);
    floor.push(cpu([LOOP, listFile]) - bare);
  }
  const dirs = files.filter((f) => f.dir).length;
  console.log(
    `  ${args.join(' ').padEnd(20)} ${String(files.length - dirs).padStart(6)} files ${String(dirs).padStart(6)} dirs   command ${median(cmd).toFixed(0).padStart(5)} ms   bare loop ${median(floor).toFixed(0).padStart(5)} ms   ratio ${(median(cmd) / median(floor)).toFixed(2)}`,
  );
  if (name === 'p') numastat();
}
console.log(`load ${load()}`);

/** numastat -p java on the same tree: its own CPU (user + system of the child), median of the rounds. */
function numastat() {
  const can = process.getuid?.() === 0 && spawnSync('which', ['numastat', 'unshare']).status === 0;
  if (!can || !existsSync('/usr/bin/time')) {
    console.log(
      '  numastat -p java: skipped: needs root, numastat (Debian: numactl), unshare (util-linux) and /usr/bin/time (Debian: time)',
    );
    return;
  }
  const script = `mount --bind "$1/proc" /proc && mount --bind "$1/sys/devices/system/node" /sys/devices/system/node && exec /usr/bin/time -f '%U %S %e' numastat -p java >/dev/null`;
  const runs = [];
  for (let r = 0; r < rounds; r++) {
    const out = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', large], {
      encoding: 'utf8',
    });
    const [u, s, e] = out.stderr.trim().split('\n').at(-1).split(' ').map(Number);
    runs.push({ cpu: (u + s) * 1000, wall: e * 1000 });
  }
  console.log(
    `  numastat -p java: ${median(runs.map((r) => r.cpu)).toFixed(0)} ms of CPU, ${median(runs.map((r) => r.wall)).toFixed(0)} ms wall (its whole run: a C program starts in about 1 ms)`,
  );
}
