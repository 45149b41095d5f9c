#!/usr/bin/env node
// What an idle `numakit agent --advise` costs on this machine, against an earlier build or other
// Node flags in the same run: the agents run side by side (same processes, same load) for
// --seconds from their ready line, and their CPU time (user and kernel, from /proc/PID/stat) is
// printed per minute, for the first minute after ready and for the rest apart (V8 compiles what got
// hot and the collector settles in the first minute).
// A first proxy for bench/agent-vs-numad.mjs --protocols idle (a lab guest under TCG, minutes);
// read-only (--advise): it changes nothing. Not a timed test: run it on its own, after npm run build.
//   node bench/agent-idle.mjs [--before DIR] [--variant 'NAME:NODE FLAGS']... [--floor]
//                             [--seconds 60] [--agent 'ARGS'] [--after-args 'ARGS'] [--after-node 'FLAGS']
// DIR: a copy of an earlier dist/ (cp -r dist tmp/dist-before before rebuilding). --variant runs
// this build once more under node with those flags (e.g. 'noopt:--no-opt'). --floor adds a bare
// node process that only wakes every 15 s: what Node itself costs idle. ARGS go to every agent
// (e.g. '--interval 1s --max-interval 1s' for the cost of a pass; an earlier build without
// --max-interval refuses it: give it to this one only with --after-args). --after-node: node
// flags for this build's agent (one variant at a time, without others starting beside it).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const arg = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const all = (k) => argv.flatMap((a, i) => (a === k && i + 1 < argv.length ? [argv[i + 1]] : []));
const seconds = Number(arg('--seconds', 60));
const before = arg('--before', null);
const words = (s) => s.split(' ').filter(Boolean);
const common = words(arg('--agent', ''));
const afterOnly = words(arg('--after-args', ''));
const repo = fileURLToPath(new URL('..', import.meta.url));
const after = `${repo}dist/cli/bin.js`;

/** utime and stime of a process, in seconds (USER_HZ 100). */
function cpu(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

/** Starts one tuner; resolves once it printed its ready line (the bare floor: at once). */
function start(name, nodeFlags, script) {
  const child = spawn(process.execPath, [...nodeFlags, ...script], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
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

const agent = (bin, extra) => [bin, 'agent', '--advise', '--log-format', 'json', ...common, ...extra];
const runs = [start('after', words(arg('--after-node', '')), agent(after, afterOnly))];
if (before !== null) runs.push(start('before', [], agent(`${before}/cli/bin.js`, [])));
for (const v of all('--variant')) {
  const [name, flags] = [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];
  runs.push(start(name, words(flags), agent(after, afterOnly)));
}
if (argv.includes('--floor'))
  runs.push(start('floor', [], ['-e', 'console.log(\'{"event":"ready"}\'); setInterval(() => {}, 15000)']));
const loadBefore = loadavg();
const agents = await Promise.all(runs);
const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));
const first = Math.min(60, seconds);
await sleep(first);
const atMinute = new Map(agents.map((a) => [a, cpu(a.child.pid)]));
await sleep(seconds - first);
const rate = (a, b, s) => {
  const [user, sys] = [((b.user - a.user) * 60) / s, ((b.sys - a.sys) * 60) / s];
  return `${(user + sys).toFixed(3)} (${user.toFixed(3)} / ${sys.toFixed(3)})`;
};
console.log(
  `CPU s a minute, all (user / kernel), from the ready line: whole ${seconds} s | first ${first} s | the rest`,
);
for (const a of agents) {
  const end = cpu(a.child.pid);
  const mid = atMinute.get(a);
  const rest = seconds > first ? rate(mid, end, seconds - first) : '-';
  console.log(`${a.name.padEnd(10)} ${rate(a.atReady, end, seconds)} | ${rate(a.atReady, mid, first)} | ${rest}`);
  a.child.kill('SIGTERM');
}
const procs = readFileSync('/proc/loadavg', 'utf8').split(' ')[3];
console.log(
  `host: ${seconds} s side by side, ${procs} tasks; load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
