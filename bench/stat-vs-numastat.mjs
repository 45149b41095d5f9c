#!/usr/bin/env node
// numakit stat -p over every process on this machine against numastat -p over the same PIDs,
// in the same run, alternating, median of N rounds, of each whole command (Node's start-up
// included): wall time, and CPU time (user + system, 10 ms resolution), which a loaded machine
// distorts less. Goal: numakit at most 2x numastat. Needs numastat (numactl package) and a
// build (npm run build).   node bench/stat-vs-numastat.mjs [--rounds N] [--spawn N]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const rounds = arg('--rounds', 7);
// --spawn N: start N extra processes (sleep) first, to see the ratio on a machine with many
// processes: Node's start-up is a fixed cost that a machine with ~100 processes cannot hide.
const extra = Array.from({ length: arg('--spawn', 0) }, () => spawn('sleep', ['600'], { stdio: 'ignore' }));
extra.forEach((c) => c.unref());
process.on('exit', () => extra.forEach((c) => c.kill()));
const bin = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
try {
  execFileSync('numastat', ['-V'], { stdio: 'ignore' });
} catch {
  console.error('bench: numastat not found (apt-get install numactl)');
  process.exit(1);
}

const pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
const args = pids.flatMap((p) => ['-p', p]);

/** CPU time of waited-for children (cutime + cstime, fields 16-17 of /proc/self/stat), in ms. */
function childCpuMs() {
  const f = readFileSync('/proc/self/stat', 'utf8')
    .slice(readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2)
    .split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** Wall and CPU milliseconds of one run. CPU time is what to trust on a loaded machine. */
function time(cmd, argv) {
  const c0 = childCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && cmd !== 'numastat') throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`);
  return { wall: ms, cpu: childCpuMs() - c0 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ours = [];
const theirs = [];
time(process.execPath, [bin, 'stat', '-p', '1']); // warm the file cache
for (let i = 0; i < rounds; i++) {
  theirs.push(time('numastat', args));
  ours.push(time(process.execPath, [bin, 'stat', ...args]));
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(`processes: ${pids.length}, rounds: ${rounds}, load average: ${load}`);
for (const k of ['wall', 'cpu']) {
  const a = median(ours.map((x) => x[k]));
  const b = median(theirs.map((x) => x[k]));
  console.log(
    `${k.padEnd(4)}  numastat -p ${b.toFixed(0).padStart(6)} ms   numakit stat -p ${a.toFixed(0).padStart(6)} ms   ratio ${(a / b).toFixed(2)}x (goal <= 2x) ${a / b <= 2 ? 'OK' : 'OVER'}`,
  );
}
