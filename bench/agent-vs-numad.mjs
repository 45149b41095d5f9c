#!/usr/bin/env node
// numakit agent against numad and the kernel's AutoNUMA, in one 4-node lab guest (4node-asym:
// 4 nodes x 1 vCPU), the same scenarios for each tuner, measured the same way by
// test/lab/guest-helpers/agent_scenario.mjs: a busy process misplaced (memory bound to node 1 at
// start, threads on node 0, node 1's CPU kept busy by a pinned spinner), 400 MB and 96 MB.
// Prints per tuner and scenario: time to 95% locality (held 2 s; from the tuner's start, its
// start-up included), final locality, CPU seconds the tuner used (AutoNUMA's work runs inside the
// tasks themselves: not measurable apart), pages moved (pgmigrate_success).
// numad runs as docs/LAB.md says (unshare --time so it evaluates at once), numakit with its
// defaults (--interval 5s). Not a timed test: run it on its own, after npm run build.
//   node bench/agent-vs-numad.mjs [--timeout SEC] [--sizes 400,96] [--tuners numakit,numad,autonuma]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const timeout = Number(arg('--timeout', 60));
const sizes = arg('--sizes', '400,96').split(',').map(Number);
const tuners = arg('--tuners', 'numakit,numad,autonuma').split(',');
const repo = fileURLToPath(new URL('..', import.meta.url));

const runs = sizes.flatMap((mib) => tuners.map((t) => ({ t, mib })));
const script = runs
  .map(({ t, mib }) => `node test/lab/guest-helpers/agent_scenario.mjs ${t} misplaced --mib ${mib} --timeout ${timeout} --agent '--include agent_workload[.]mjs'; sleep 1`)
  .join('\n');
console.error(`bench: ${runs.length} runs in one 4node-asym guest, up to ${timeout} s each (TCG: minutes)`);
const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/lab/cli.ts', '--topology', '4node-asym', '--timeout', String(runs.length * (timeout + 240)), '--', script], {
  cwd: repo, encoding: 'utf8', maxBuffer: 256 << 20,
});
const results = r.stdout.split('\n').filter((l) => l.startsWith('{"tuner"')).map((l) => JSON.parse(l));
if (results.length !== runs.length) {
  console.error(`bench: ${results.length} of ${runs.length} runs reported\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  process.exitCode = 1;
}

const fmt = (x, d = 1) => (x === null || x === undefined ? '-' : x.toFixed(d));
const rows = [['tuner', 'process', 'time to 95%', 'final locality', 'tuner CPU s', 'pages moved']];
for (const x of results) {
  rows.push([
    x.tuner, `${x.mib} MB`, x.t95.busy === null ? `never (${timeout} s)` : `${fmt(x.t95.busy)} s`,
    `${Math.round(x.final.busy.locality * 100)}%`, x.tuner === 'autonuma' ? 'in-task' : fmt(x.tunerCpuSeconds, 2), String(x.pagesMoved),
  ]);
}
const w = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
for (const row of rows) console.log(row.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd());
for (const mib of sizes) {
  const by = Object.fromEntries(results.filter((x) => x.mib === mib).map((x) => [x.tuner, x]));
  const n = by.numakit;
  const d = by.numad;
  if (n && d) {
    const ratio = n.t95.busy !== null && d.t95.busy !== null ? `${(n.t95.busy / d.t95.busy).toFixed(2)}x numad's time` : n.t95.busy !== null ? 'numad never converged' : 'numakit never converged';
    console.log(`${mib} MB: numakit ${ratio}; CPU ${fmt(n.tunerCpuSeconds, 2)} s vs numad ${fmt(d.tunerCpuSeconds, 2)} s`);
  }
}
