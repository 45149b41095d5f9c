#!/usr/bin/env node
// What `numakit agent --advise` costs under process churn on this machine, against numad and an
// earlier build in the same minutes: the tuners run side by side (same processes, same load), and
// phases alternate: churn (a shell starting about 40 short-lived `sleep`s a second, as the lab's
// churn scenario does) and idle (nothing started). Each phase lasts --seconds; the CPU time of
// each tuner over it (user and kernel, from /proc/PID/stat) is printed, one line a phase.
// numad on a machine of one node reads no process (it manages only with two nodes or more): its
// native figure is its floor, the guest's (bench/agent-vs-numad.mjs --protocols churn) the match.
// Read-only (--advise). Not a timed test: run it on its own, after npm run build.
//   node bench/agent-churn.mjs [--before DIR] [--rounds 2] [--seconds 60] [--agent 'ARGS'] [--no-numad]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const arg = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const seconds = Number(arg('--seconds', 60));
const rounds = Number(arg('--rounds', 2));
const before = arg('--before', null);
const common = arg('--agent', '').split(' ').filter(Boolean);
const repo = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** utime and stime of a process, in seconds (USER_HZ 100). */
function cpu(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

function startAgent(name, bin) {
  const child = spawn(process.execPath, [bin, 'agent', '--advise', '--log-format', 'json', ...common], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      log += d;
      if (log.includes('"event":"ready"') && !child.ready) {
        child.ready = true;
        resolve({ name, pid: child.pid, stop: () => child.kill('SIGTERM') });
      }
    });
  });
}

function startNumad() {
  spawnSync('numad', ['-i', '5', '-l', '5']);
  const pid = Number(spawnSync('pidof', ['numad'], { encoding: 'utf8' }).stdout.trim().split(' ')[0]);
  return { name: 'numad', pid, stop: () => process.kill(pid, 'SIGTERM') };
}

const tuners = [await startAgent('after', `${repo}dist/cli/bin.js`)];
if (before !== null) tuners.push(await startAgent('before', `${before}/cli/bin.js`));
if (!argv.includes('--no-numad')) tuners.push(startNumad());
await sleep(5000); // past the first passes

let sh = null;
const stopAll = () => {
  sh?.kill('SIGKILL');
  for (const t of tuners) t.stop();
};
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
])
  process.on(signal, () => {
    stopAll();
    process.exit(code);
  });
const fmt = (x) => x.toFixed(2);
console.log(`phase  load   ${tuners.map((t) => `${t.name} user/sys`).join('   ')}   (CPU s over ${seconds} s)`);
try {
  for (let r = 0; r < rounds; r++) {
    for (const phase of r % 2 === 0 ? ['churn', 'idle'] : ['idle', 'churn']) {
      sh = phase === 'churn' ? spawn('sh', ['-c', 'while :; do sleep 0.5 & sleep 0.05; done']) : null;
      const pid0 = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ').at(-1));
      const at = tuners.map((t) => cpu(t.pid));
      await sleep(seconds * 1000);
      const now = tuners.map((t) => cpu(t.pid));
      const pids = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ').at(-1)) - pid0;
      sh?.kill('SIGKILL');
      const cols = tuners.map((_, i) => `${fmt(now[i].user - at[i].user)} / ${fmt(now[i].sys - at[i].sys)}`);
      console.log(`${phase.padEnd(6)} ${fmt(loadavg()[0])}   ${cols.join('   ')}   (${pids} pids)`);
      await sleep(2000);
    }
  }
} finally {
  stopAll();
}
