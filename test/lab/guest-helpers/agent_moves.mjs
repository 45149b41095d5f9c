// In a lab guest: one numakit agent and N misplaced processes, one after the other (each started
// once the one before was moved and killed), and what each move cost the agent: its CPU seconds,
// user (its own) and system (mostly the kernel's page copy), in all and on its main thread, from
// the process's start until 2 s after the agent logged the move. The first move runs the agent's
// code for the first time (V8 compiles it then: a one-time cost under TCG); the later ones show
// what a move costs an agent that has run a while. Prints one JSON line per move.
//   node agent_moves.mjs [--cli PATH] [--label NAME] [--mib 400] [--moves 3] [--idle-first SEC]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeOfCpu } from './agent_probe.mjs';

const opt = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const CLI = opt('--cli', null) ?? fileURLToPath(new URL('../../../dist/cli/numakit.cjs', import.meta.url));
const WORKLOAD = fileURLToPath(new URL('agent_workload.mjs', import.meta.url));
const MIB = opt('--mib', '400');
const MOVES = Number(opt('--moves', 3));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** utime and stime (USER_HZ ticks) of a stat file. */
function ticks(path) {
  const raw = readFileSync(path, 'utf8');
  const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]), sys: Number(f[12]) };
}
/** Per thread of pid, and in all. */
function cpu(pid) {
  const threads = Object.fromEntries(
    readdirSync(`/proc/${pid}/task`).map((tid) => [tid, ticks(`/proc/${pid}/task/${tid}/stat`)]),
  );
  return { all: ticks(`/proc/${pid}/stat`), main: threads[String(pid)], threads };
}
const seconds = (a, b) => ({ user: (b.user - a.user) / 100, sys: (b.sys - a.sys) / 100 });

writeFileSync('/proc/sys/kernel/numa_balancing', '0');
const cpusOf = (n) => [...nodeOfCpu()].filter(([, x]) => x === n).map(([c]) => c);
// Node 1's CPU kept busy, as in agent_scenario.mjs's "misplaced": the process cannot just go to its memory's node.
const spinner = spawn('taskset', ['-c', String(cpusOf(1)[0]), 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' });
const agent = spawn(
  process.execPath,
  [
    CLI,
    'agent',
    '--interval',
    '5s',
    '--log-format',
    'json',
    '--state-dir',
    '/run/numakit-agent',
    '--include',
    'agent_workload[.]mjs',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let log = '';
agent.stdout.on('data', (d) => {
  log += d;
});
const waitLog = async (re, from) => {
  while (!re.test(log.slice(from))) await sleep(100);
  return log
    .slice(from)
    .split('\n')
    .find((l) => re.test(l));
};
await waitLog(/"event":"ready"/, 0);
await sleep(Number(opt('--idle-first', 1)) * 1000);
let last = cpu(agent.pid);
for (let k = 1; k <= MOVES; k++) {
  const w = spawn('numactl', ['--cpunodebind=0', '--membind=1', process.execPath, WORKLOAD, MIB], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const t0 = Date.now();
  await once(w.stdout, 'data');
  const line = await waitLog(/"outcome":"(moved|partial)"/, log.length);
  await sleep(2000);
  const now = cpu(agent.pid);
  const moved = JSON.parse(line);
  const others =
    Object.entries(now.threads)
      .filter(([tid]) => tid !== String(agent.pid))
      .reduce((s, [tid, t]) => s + (t.user - (last.threads[tid]?.user ?? 0)), 0) / 100;
  console.log(
    JSON.stringify({
      label: opt('--label', 'numakit'),
      mib: Number(MIB),
      move: k,
      seconds: (Date.now() - t0) / 1000,
      all: seconds(last.all, now.all),
      main: seconds(last.main, now.main),
      otherThreadsUser: others,
      migrateMs: moved.migrateMs,
      batches: moved.batches,
      pages: moved.pages,
      outcome: moved.outcome,
    }),
  );
  w.kill('SIGKILL');
  await once(w, 'exit');
  await sleep(3000);
  last = cpu(agent.pid);
}
agent.kill('SIGTERM');
spinner.kill('SIGKILL');
await once(agent, 'exit');
