#!/usr/bin/env node
// What an idle `numakit agent --advise` costs on this machine, against an earlier build in the
// same run: both agents run side by side (same processes, same load) for --seconds from their
// ready line, and their CPU time (user and kernel, from /proc/PID/stat) is printed per minute.
// A first proxy for bench/agent-vs-numad.mjs --protocols idle (a lab guest under TCG, minutes);
// read-only (--advise): it changes nothing. Not a timed test: run it on its own, after npm run build.
//   node bench/agent-idle.mjs --before DIR [--seconds 60] [--agent 'ARGS']
// DIR: a copy of an earlier dist/ (cp -r dist tmp/dist-before before rebuilding). ARGS go to both
// agents (e.g. '--interval 1s --max-interval 1s' for the cost of a pass; an earlier build without
// --max-interval refuses it: give it to this one only with --after-args).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const seconds = Number(arg('--seconds', 60));
const before = arg('--before', null);
const common = arg('--agent', '').split(' ').filter(Boolean);
const afterOnly = arg('--after-args', '').split(' ').filter(Boolean);
const repo = fileURLToPath(new URL('..', import.meta.url));

/** utime and stime of a process, in seconds (USER_HZ 100). */
function cpu(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

function start(name, bin, extra) {
  const child = spawn(process.execPath, [bin, 'agent', '--advise', '--log-format', 'json', ...common, ...extra], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
  let log = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      log += d;
      if (log.includes('"event":"ready"') && !child.ready) {
        child.ready = true;
        resolve({ name, child, atReady: cpu(child.pid), log: () => log });
      }
    });
  });
}

const runs = [start('after', `${repo}dist/cli/bin.js`, afterOnly)];
if (before !== null) runs.push(start('before', `${before}/cli/bin.js`, []));
const loadBefore = loadavg();
const agents = await Promise.all(runs);
await new Promise((r) => setTimeout(r, seconds * 1000));
const perMin = 60 / seconds;
for (const a of agents) {
  const end = cpu(a.child.pid);
  const user = (end.user - a.atReady.user) * perMin;
  const sys = (end.sys - a.atReady.sys) * perMin;
  const ready = JSON.parse(a.log().split('\n').find((l) => l.includes('"event":"ready"')));
  console.log(`${a.name.padEnd(6)} ${(user + sys).toFixed(3)} CPU s a minute (user ${user.toFixed(3)}, kernel ${sys.toFixed(3)}); interval ${ready.intervalSeconds} s${ready.maxIntervalSeconds ? `, up to ${ready.maxIntervalSeconds} s` : ''}`);
  a.child.kill('SIGTERM');
}
const procs = readFileSync('/proc/loadavg', 'utf8').split(' ')[3];
console.log(`host: ${seconds} s side by side, ${procs} tasks; load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
