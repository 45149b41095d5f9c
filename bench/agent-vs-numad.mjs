#!/usr/bin/env node
// numakit agent against numad and the kernel's AutoNUMA, in one 4-node lab guest (4node-asym:
// 4 nodes x 1 vCPU, distances 10/16/22/28, 1000 MiB per node so a 400 MB process fits one), the
// same scenario for each tuner, measured the same way by test/lab/guest-helpers/agent_scenario.mjs:
// a busy process misplaced (memory bound to node 1 while it allocates, threads on node 0, node 1's
// CPU kept busy by a pinned spinner), 400 MB and 96 MB, under two protocols, then the scenarios
// numad was built for and those where moving is waste (one protocol each, the tuner first):
//   appears  the tuner runs (and is ready) first, then the process starts: a daemon in service.
//            Time to 95% counts from the process's start.
//   present  the process runs first, then the tuner starts (how docs/LAB.md measured numad).
//            Time to 95% counts from the tuner's start, its start-up included (numakit: Node's
//            start-up, seconds under TCG; shown apart). AutoNUMA has no daemon: appears only.
//   idle     no workload: what the tuner costs by itself over --timeout seconds (its CPU from
//            ready on: its passes over every process, nothing to move).
//   fill     three busy processes of --fill-mib (400) MB, memory on nodes 1, 2 and 3, started on
//            node 0's CPU: more than one node holds. Time until every one holds 95%, the least
//            local one's final locality, and the least free memory any node had meanwhile.
//   large    one busy process of --large-mib (1300) MB, larger than a node, memory on nodes 1
//            and 2, started on node 0: what each tuner makes of it, and the pages it moved.
//   burst    a busy --burst-mib (96) MB process that exits 2.5 s after it started: moved or not,
//            and the pages moved while it lived (moving it is waste).
//   churn    about 40 short-lived small processes a second for --timeout seconds: the tuner's CPU
//            (against idle). AutoNUMA (no daemon) is not in idle, churn or present.
// Prints per run: time to 95% locality (held 2 s), final locality, CPU seconds the tuner used
// while managing the process, its own (user) apart from the kernel's (system time: mostly the
// page copying of its migrations; AutoNUMA's work runs inside the tasks: not measurable apart),
// and in all, pages moved (pgmigrate_success); then numakit against numad per case, the idle cost
// ratio, and the host's load average before and after (a loaded host distorts every number).
// numad runs as docs/LAB.md says (unshare --time so it evaluates at once), numakit with its
// defaults (--interval 5s). Not a timed test: run it on its own, after npm run build.
// numad-u100 is numad with -u 100 (target utilization 100%, not 85%): with 85% it counts one busy
// thread as 1.17 CPUs and so never fits it on a 1-CPU node. numakit-cpuX (not run unless named in
// --tuners) is numakit with --max-migrate-cpu X: numakit-cpu1 a whole CPU for every copy, unpaced,
// as numad and AutoNUMA copy; numakit-cpu0.5 half of one (numakit's default, auto, gives a copy a
// whole CPU while the machine has one idle, half otherwise).
//   node bench/agent-vs-numad.mjs [--timeout SEC] [--quiet-timeout SEC] [--sizes 400,96]
//                                 [--tuners numakit,numad,numad-u100,autonuma] (also numakit-cpuX)
//                                 [--scenarios appears,present,idle,fill,large,burst,churn] (or --protocols)
//                                 [--boots one|tuner] [--limit SEC] [--node-mib 1000]
//                                 [--fill-mib 400] [--large-mib 1300] [--burst-mib 96] [--json FILE] [--before DIR] [--cli DIR]
// Runs go scenario by scenario, every tuner in a row, in the order --scenarios gives. Each row is
// printed (and appended to --json) as soon as the guest has written it, so a run stopped by
// --limit, a signal or the guest's own timeout still leaves every finished row and the table of
// them. --quiet-timeout: idle and churn's length (a rate; default --timeout). --boots tuner: one
// guest boot per tuner instead of one for all.
// --before DIR: also runs an earlier build of numakit (DIR: a copy of its dist/, inside the repo so
// the guest sees it; e.g. cp -r dist tmp/dist-before before rebuilding) as tuner numakit-before,
// in the same guest and run: before/after under the same load.
// --json FILE keeps every run's whole record (the tuner's log, the locality trace) as JSON lines.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// --help: the comment above (the usage), and nothing run: a guest boot is minutes.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  const head = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  const lines = head.slice(
    1,
    head.findIndex((l) => l.startsWith('import ')),
  );
  process.stdout.write(`${lines.map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
  process.exit(0);
}
const arg = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const timeout = Number(arg('--timeout', 60));
// --node-mib: memory of each of the guest's 4 nodes (fill and large must exceed one; smaller sizes
// touch and move less, which a loaded host needs).
const nodeMib = Number(arg('--node-mib', 1000));
// idle and churn: the tuner's cost over this many seconds (a rate: shorter than a convergence run).
const quietTimeout = Number(arg('--quiet-timeout', timeout));
const sizes = arg('--sizes', '400,96').split(',').map(Number);
const tuners = arg('--tuners', 'numakit,numad,numad-u100,autonuma').split(',');
const repo = fileURLToPath(new URL('..', import.meta.url));

const ALL = ['appears', 'present', 'idle', 'fill', 'large', 'burst', 'churn'];
// --scenarios (or --protocols): which of ALL, in the order given.
const protocols = arg('--scenarios', arg('--protocols', ALL.join(','))).split(',');
for (const p of protocols)
  if (!ALL.includes(p)) throw new Error(`--scenarios: unknown '${p}' (one of ${ALL.join(', ')})`);
const before = arg('--before', null);
if (before !== null) tuners.push('numakit-before');
// The size of each scenario with one size (MB): fill's processes (three), the one larger than a node, the burst.
const oneSize = {
  fill: Number(arg('--fill-mib', 400)),
  large: Number(arg('--large-mib', 1300)),
  burst: Number(arg('--burst-mib', 96)),
  idle: 0,
  churn: 0,
};
// AutoNUMA has no daemon: it cannot start after the process, and its cost runs inside the tasks.
const autonumaIn = new Set(['appears', 'fill', 'large', 'burst']);
// Scenario by scenario, every tuner in a row: a run cut short still compares the tuners on what it did.
const runs = protocols.flatMap((protocol) =>
  (protocol in oneSize ? [oneSize[protocol]] : sizes).flatMap((mib) =>
    tuners.filter((t) => autonumaIn.has(protocol) || t !== 'autonuma').map((t) => ({ protocol, t, mib })),
  ),
);
/** numakit-cpuX: numakit with --max-migrate-cpu X (numakit-cpu1, numakit-cpu0.5); null for another tuner. */
const cpuShareOf = (t) => /^numakit-cpu(\d+(?:\.\d+)?)$/.exec(t)?.[1] ?? null;
const others = (names) => [...names, ...tuners.filter((t) => cpuShareOf(t) !== null)];
const scenarioOf = (protocol) => (protocol === 'appears' || protocol === 'present' ? 'misplaced' : protocol);
// --cli DIR: numakit from a copy of dist/ (inside the repo), so a rebuild during a long run changes nothing.
const cli = arg('--cli', null);
const extra = (t) =>
  t === 'numakit-before'
    ? ` --label numakit-before --cli ${before}/cli/numakit.cjs`
    : (cpuShareOf(t) !== null ? ` --label ${t}` : '') +
      (t.startsWith('numakit') && cli !== null ? ` --cli ${cli}/cli/numakit.cjs` : '');
const agentArgs = (t) =>
  `--include agent_workload[.]mjs${cpuShareOf(t) !== null ? ` --max-migrate-cpu ${cpuShareOf(t)}` : ''}`;
const runTimeout = (protocol) => (protocol === 'idle' || protocol === 'churn' ? quietTimeout : timeout);
const line = ({ protocol, t, mib }) =>
  `node test/lab/guest-helpers/agent_scenario.mjs ${t.startsWith('numakit') ? 'numakit' : t} ${scenarioOf(protocol)}${extra(t)} --mib ${mib} --timeout ${runTimeout(protocol)}${protocol === 'present' ? '' : ' --tuner-first'} --agent '${agentArgs(t)}'; sleep 1`;
// --boots tuner: one guest boot per tuner (a tuner that wedges its guest costs only its own rows);
// default one boot for every run.
const boots =
  arg('--boots', 'one') === 'tuner'
    ? tuners.map((t) => runs.filter((r) => r.t === t)).filter((g) => g.length > 0)
    : [runs];
// --limit SEC: the whole bench's wall-clock limit; when it is reached the guest is stopped and the
// table holds the runs that finished.
const limitMs = Number(arg('--limit', 0)) * 1000 || Number.POSITIVE_INFINITY;
const jsonFile = arg('--json', null);
if (jsonFile !== null) writeFileSync(jsonFile, '');
const loadBefore = loadavg();
const startedAt = Date.now();
console.error(
  `bench: ${runs.length} runs in ${boots.length} 4node-asym guest boot(s), up to ${timeout} s each (idle, churn ${quietTimeout} s; TCG: minutes)`,
);

const fmt = (x, d = 1) => (x === null || x === undefined ? '-' : x.toFixed(d));
const protocolOf = (x) => (x.scenario === 'misplaced' ? (x.tunerFirst ? 'appears' : 'present') : x.scenario);
// The tuner's own CPU while managing (user) and the kernel's (system: mostly its page copying), apart.
const own = (x) => (x.tunerCpuManaging === null ? null : x.tunerCpuManaging - (x.tunerSysManaging ?? 0));
/** Time to 95% of the scenario: every process held 95% (the slowest), null when one never did. */
const t95Of = (x) => {
  const ts = Object.values(x.t95 ?? {});
  return ts.length === 0 || ts.some((t) => t === null) ? null : Math.max(...ts);
};
/** Final locality: the least local process. */
const finalOf = (x) => {
  const ls = Object.values(x.final ?? {}).map((f) => f.locality);
  return ls.length === 0 ? null : Math.min(...ls);
};
const timeCell = (x) => {
  if (x.scenario === 'burst') return x.movedIt ? 'moved it' : 'not moved';
  if (x.scenario === 'idle' || x.scenario === 'churn') return '-';
  const t = t95Of(x);
  return t === null ? `never (${runTimeout(protocolOf(x))} s)` : `${fmt(t)} s`;
};
const finalCell = (x) => {
  if (x.scenario === 'burst') return `lived ${fmt(x.livedSeconds)} s from spawn to exit`;
  if (x.scenario === 'churn') return `${x.pidsCreated} pids created`;
  const f = finalOf(x);
  const free = x.nodeFreeMinMiB ? `; least free ${Math.min(...Object.values(x.nodeFreeMinMiB))} MiB` : '';
  return f === null ? '-' : `${Math.round(f * 100)}%${x.scenario === 'fill' || x.scenario === 'large' ? free : ''}`;
};
const HEADER = [
  'scenario',
  'tuner',
  'process',
  'time to 95%',
  'tuner start-up',
  'final locality',
  'CPU s managing: own / kernel',
  'CPU s in all',
  'pages moved',
];
function rowOf(x) {
  return [
    protocolOf(x),
    x.tuner,
    x.mib === 0 ? 'none' : x.scenario === 'fill' ? `3 x ${x.mib} MB` : `${x.mib} MB`,
    timeCell(x),
    x.tunerFirst || x.readyAfter === null ? '-' : `${fmt(x.readyAfter)} s`,
    finalCell(x),
    x.tuner === 'autonuma' ? 'in-task' : `${fmt(own(x), 2)} / ${fmt(x.tunerSysManaging, 2)}`,
    x.tuner === 'autonuma' ? '-' : fmt(x.tunerCpuSeconds, 2),
    String(x.pagesMoved),
  ];
}
const results = [];
/** Each finished run as soon as the guest wrote it: one row, and the JSON line to --json. */
function take(text, seen) {
  const lines = text.split('\n').slice(0, -1); // the last one may be partial
  for (const l of lines.slice(seen.n)) {
    if (!l.startsWith('{"tuner"')) continue;
    const x = JSON.parse(l);
    results.push(x);
    if (jsonFile !== null) appendFileSync(jsonFile, `${l}\n`);
    console.log(
      `row ${results.length}/${runs.length} (${((Date.now() - startedAt) / 60000).toFixed(1)} min): ${rowOf(x).join(' | ')}`,
    );
  }
  seen.n = Math.max(seen.n, lines.length);
}

/** The guest's stdout as it grows: the lab keeps it in a share under TMPDIR (numakit-lab-*), given its own TMPDIR here. */
function guestStdout(dir) {
  for (const d of existsSync(dir) ? readdirSync(dir) : [])
    if (d.startsWith('numakit-lab-') && existsSync(join(dir, d, 'stdout')))
      return readFileSync(join(dir, d, 'stdout'), 'utf8');
  return '';
}

let child = null;
let stopping = false;
async function boot(group) {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-bench-'));
  const seen = { n: 0 };
  // A boot under a loaded host takes minutes, and a run (Node's start-up twice, 400 MB touched)
  // several: the guest may take what --limit leaves, else 5 minutes a run and 10 to boot.
  const left = limitMs - (Date.now() - startedAt);
  const guestLimit = Math.round(
    Number.isFinite(left) ? left / 1000 + 60 : group.reduce((s, r) => s + runTimeout(r.protocol) + 300, 600),
  );
  child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/lab/cli.ts',
      '--topology',
      '4node-asym',
      '--mem',
      String(nodeMib),
      '--timeout',
      String(guestLimit),
      '--',
      group.map(line).join('\n'),
    ],
    { cwd: repo, env: { ...process.env, TMPDIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const poll = setInterval(() => take(guestStdout(dir), seen), 3000);
  const code = await new Promise((r) => child.on('exit', (c) => r(c)));
  clearInterval(poll);
  // The lab prints the guest's whole stdout when it ends (the share is gone by then).
  take(out, seen);
  if (code !== 0 && !stopping) console.error(`bench: guest exit ${code}\n${out.slice(-2000)}\n${err.slice(-2000)}`);
  child = null;
  rmSync(dir, { recursive: true, force: true });
}

function stop(why) {
  if (stopping) return;
  stopping = true;
  console.error(`bench: ${why}: stopping the guest; the table holds the runs that finished`);
  child?.kill('SIGTERM');
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
const limitTimer = Number.isFinite(limitMs)
  ? setTimeout(() => stop(`--limit ${limitMs / 1000} s reached`), limitMs)
  : null;
for (const group of boots) {
  if (stopping) break;
  await boot(group);
}
if (limitTimer !== null) clearTimeout(limitTimer);
if (results.length !== runs.length) {
  console.error(`bench: ${results.length} of ${runs.length} runs reported`);
  process.exitCode = 1;
}

const rows = [HEADER, ...results.map(rowOf)];
const w = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
for (const row of rows)
  console.log(
    row
      .map((c, i) => c.padEnd(w[i]))
      .join('  ')
      .trimEnd(),
  );
for (const protocol of protocols.filter((p) => !['idle', 'churn', 'burst'].includes(p))) {
  for (const mib of protocol in oneSize ? [oneSize[protocol]] : sizes) {
    const by = Object.fromEntries(
      results.filter((x) => x.mib === mib && protocolOf(x) === protocol).map((x) => [x.tuner, x]),
    );
    const n = by.numakit;
    for (const name of others(['autonuma', 'numad', 'numad-u100', 'numakit-before'])) {
      const d = by[name];
      if (!n || !d) continue;
      const nt = t95Of(n);
      const dt = t95Of(d);
      const ratio =
        nt !== null && dt !== null
          ? `${(nt / dt).toFixed(2)}x ${name}'s time`
          : nt !== null
            ? `converged, ${name} never did`
            : dt !== null
              ? `never converged, ${name} did`
              : 'neither converged';
      console.log(
        `${protocol}, ${mib} MB: numakit ${ratio}; own CPU while managing ${fmt(own(n), 2)} s vs ${name} ${fmt(own(d), 2)} s (kernel ${fmt(n.tunerSysManaging, 2)} vs ${fmt(d.tunerSysManaging, 2)})`,
      );
    }
  }
}
for (const quiet of ['idle', 'churn']) {
  const idle = Object.fromEntries(results.filter((x) => x.scenario === quiet).map((x) => [x.tuner, x]));
  for (const name of others(['numad', 'numad-u100', 'numakit-before'])) {
    if (idle.numakit && idle[name])
      console.log(
        `${quiet}, ${quietTimeout} s: numakit ${fmt(idle.numakit.tunerCpuManaging, 2)} CPU s (own ${fmt(own(idle.numakit), 2)}) vs ${name} ${fmt(idle[name].tunerCpuManaging, 2)} (own ${fmt(own(idle[name]), 2)}): ${fmt(idle.numakit.tunerCpuManaging / idle[name].tunerCpuManaging, 2)}x`,
      );
  }
}
const bursts = results.filter((x) => x.scenario === 'burst');
if (bursts.length > 0)
  console.log(
    `burst: ${bursts.map((x) => `${x.tuner} ${x.movedIt ? 'moved it' : 'left it'}, ${x.pagesWhileAlive} pages moved while it lived`).join('; ')}`,
  );
// Every tuner shares the guest's vCPUs with the host's other work: a loaded host slows copies and
// skews the guest's CPU accounting (ticks land in bursts), so the host's load is part of the result.
console.log(
  `host: ${((Date.now() - startedAt) / 60000) | 0} min; load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
