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

// The bare loops: each path opened and read (or listed), nothing else. `loop`: the way a Node
// program reads a file whole (readFileSync: open, fstat, read, close). `fd`: the least Node's fs
// does (openSync, one readSync into one reused 64 KiB buffer, closeSync). `raw`: libc's open, read
// and close called through koffi (numakit's own way to the kernel; about 0.2 us a call; its load
// counted), the nearest Node gets to a C program's loop. Each loop's CPU is over a program that
// only parses the list of paths.
const LOOPS = {
  // Only the list's JSON parse (and Node's start): taken off each loop below.
  list: `import { readFileSync } from 'node:fs';
JSON.parse(readFileSync(process.argv[2], 'utf8'));
`,
  loop: `import { readFileSync, readdirSync } from 'node:fs';
const list = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const { path, dir } of list) { try { dir ? readdirSync(path) : readFileSync(path); } catch {} }
`,
  fd: `import { closeSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
const list = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const buf = Buffer.allocUnsafeSlow(65536);
for (const { path, dir } of list) {
  if (dir) { try { readdirSync(path); } catch {} continue; }
  let fd = -1;
  try { fd = openSync(path, 'r'); while (readSync(fd, buf, 0, buf.length, null) === buf.length); } catch {} finally { if (fd >= 0) closeSync(fd); }
}
`,
  raw: `import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
const koffi = createRequire(${JSON.stringify(join(repo, 'package.json'))})('koffi');
const libc = koffi.load('libc.so.6');
const open = libc.func('int open(const char *path, int flags)');
const read = libc.func('long read(int fd, _Out_ uint8_t *buf, unsigned long n)');
const close = libc.func('int close(int fd)');
const list = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const buf = Buffer.allocUnsafeSlow(65536);
for (const { path, dir } of list) {
  if (dir) { try { readdirSync(path); } catch {} continue; }
  const fd = open(path, 0);
  if (fd < 0) continue;
  while (Number(read(fd, buf, buf.length)) === buf.length);
  close(fd);
}
`,
};
for (const [name, text] of Object.entries(LOOPS)) writeFileSync(join(tmp, `${name}.mjs`), text);

let lastFloor = null;
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
  const floor = { list: [], loop: [], fd: [], raw: [] };
  const bareWall = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const bare = cpu(['-e', '0']);
    bareWall.push(performance.now() - t0);
    cmd.push(cpu([bin, '--root', large, ...args]) - bare);
    const list = cpu([join(tmp, 'list.mjs'), listFile]);
    floor.list.push(list - bare);
    for (const loop of ['loop', 'fd', 'raw']) floor[loop].push(cpu([join(tmp, `${loop}.mjs`), listFile]) - list);
  }
  const dirs = files.filter((f) => f.dir).length;
  const ms = (xs) => `${median(xs).toFixed(0).padStart(5)} ms`;
  console.log(
    `  ${args.join(' ').padEnd(20)} ${String(files.length - dirs).padStart(6)} files ${String(dirs).padStart(6)} dirs   command ${ms(cmd)}   readFileSync loop ${ms(floor.loop)}   fd loop ${ms(floor.fd)}   raw syscalls ${ms(floor.raw)}   command / fd loop ${(median(cmd) / median(floor.fd)).toFixed(2)}`,
  );
  lastFloor = { bareWall: median(bareWall), raw: median(floor.raw) };
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
  const wall = median(runs.map((r) => r.wall));
  console.log(
    `  numastat -p java: ${median(runs.map((r) => r.cpu)).toFixed(0)} ms of CPU, ${wall.toFixed(0)} ms wall (its whole run: a C program starts in about 1 ms)`,
  );
  // What 1.5x numastat leaves a Node program once it has started and made the same system calls.
  const least = lastFloor.bareWall + lastFloor.raw;
  console.log(
    `  1.5 x numastat = ${(1.5 * wall).toFixed(0)} ms; \`node -e 0\` (${lastFloor.bareWall.toFixed(0)} ms wall) + the raw loop = ${least.toFixed(0)} ms (${(least / wall).toFixed(2)}x numastat) before any parsing, module or output`,
  );
}
