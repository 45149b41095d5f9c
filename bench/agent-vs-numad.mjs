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
// thread as 1.17 CPUs and so never fits it on a 1-CPU node.
//   node bench/agent-vs-numad.mjs [--timeout SEC] [--sizes 400,96] [--tuners numakit,numad,numad-u100,autonuma]
//                                 [--protocols appears,present,idle,fill,large,burst,churn]
//                                 [--fill-mib 400] [--large-mib 1300] [--burst-mib 96] [--json FILE] [--before DIR] [--cli DIR]
// --before DIR: also runs an earlier build of numakit (DIR: a copy of its dist/, inside the repo so
// the guest sees it; e.g. cp -r dist tmp/dist-before before rebuilding) as tuner numakit-before,
// in the same guest and run: before/after under the same load.
// --json FILE keeps every run's whole record (the tuner's log, the locality trace) as JSON lines.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const timeout = Number(arg('--timeout', 60));
const sizes = arg('--sizes', '400,96').split(',').map(Number);
const tuners = arg('--tuners', 'numakit,numad,numad-u100,autonuma').split(',');
const repo = fileURLToPath(new URL('..', import.meta.url));

const protocols = arg('--protocols', 'appears,present,idle,fill,large,burst,churn').split(',');
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
const runs = protocols.flatMap((protocol) =>
  (protocol in oneSize ? [oneSize[protocol]] : sizes).flatMap((mib) =>
    tuners.filter((t) => autonumaIn.has(protocol) || t !== 'autonuma').map((t) => ({ protocol, t, mib })),
  ),
);
const scenarioOf = (protocol) => (protocol === 'appears' || protocol === 'present' ? 'misplaced' : protocol);
// --cli DIR: numakit from a copy of dist/ (inside the repo), so a rebuild during a long run changes nothing.
const cli = arg('--cli', null);
const extra = (t) =>
  t === 'numakit-before'
    ? ` --label numakit-before --cli ${before}/cli/bin.js`
    : t === 'numakit' && cli !== null
      ? ` --cli ${cli}/cli/bin.js`
      : '';
const script = runs
  .map(
    ({ protocol, t, mib }) =>
      `node test/lab/guest-helpers/agent_scenario.mjs ${t === 'numakit-before' ? 'numakit' : t} ${scenarioOf(protocol)}${extra(t)} --mib ${mib} --timeout ${timeout}${protocol === 'present' ? '' : ' --tuner-first'} --agent '--include agent_workload[.]mjs'; sleep 1`,
  )
  .join('\n');
console.error(`bench: ${runs.length} runs in one 4node-asym guest, up to ${timeout} s each (TCG: minutes)`);
const loadBefore = loadavg();
const startedAt = Date.now();
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    'test/lab/cli.ts',
    '--topology',
    '4node-asym',
    '--mem',
    '1000',
    '--timeout',
    String(runs.length * (timeout + 240)),
    '--',
    script,
  ],
  {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  },
);
const lines = r.stdout.split('\n').filter((l) => l.startsWith('{"tuner"'));
const results = lines.map((l) => JSON.parse(l));
if (arg('--json', null) !== null) writeFileSync(arg('--json', null), lines.map((l) => `${l}\n`).join(''));
if (results.length !== runs.length) {
  console.error(
    `bench: ${results.length} of ${runs.length} runs reported\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
  );
  process.exitCode = 1;
}

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
  return t === null ? `never (${timeout} s)` : `${fmt(t)} s`;
};
const finalCell = (x) => {
  if (x.scenario === 'burst') return `lived ${fmt(x.livedSeconds)} s from spawn to exit`;
  if (x.scenario === 'churn') return `${x.pidsCreated} pids created`;
  const f = finalOf(x);
  const free = x.nodeFreeMinMiB ? `; least free ${Math.min(...Object.values(x.nodeFreeMinMiB))} MiB` : '';
  return f === null ? '-' : `${Math.round(f * 100)}%${x.scenario === 'fill' || x.scenario === 'large' ? free : ''}`;
};
const rows = [
  [
    'scenario',
    'tuner',
    'process',
    'time to 95%',
    'tuner start-up',
    'final locality',
    'CPU s managing: own / kernel',
    'CPU s in all',
    'pages moved',
  ],
];
for (const x of results) {
  rows.push([
    protocolOf(x),
    x.tuner,
    x.mib === 0 ? 'none' : x.scenario === 'fill' ? `3 x ${x.mib} MB` : `${x.mib} MB`,
    timeCell(x),
    x.tunerFirst || x.readyAfter === null ? '-' : `${fmt(x.readyAfter)} s`,
    finalCell(x),
    x.tuner === 'autonuma' ? 'in-task' : `${fmt(own(x), 2)} / ${fmt(x.tunerSysManaging, 2)}`,
    x.tuner === 'autonuma' ? '-' : fmt(x.tunerCpuSeconds, 2),
    String(x.pagesMoved),
  ]);
}
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
    for (const name of ['autonuma', 'numad', 'numad-u100', 'numakit-before']) {
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
  for (const name of ['numad', 'numad-u100', 'numakit-before']) {
    if (idle.numakit && idle[name])
      console.log(
        `${quiet}, ${timeout} s: numakit ${fmt(idle.numakit.tunerCpuManaging, 2)} CPU s (own ${fmt(own(idle.numakit), 2)}) vs ${name} ${fmt(idle[name].tunerCpuManaging, 2)} (own ${fmt(own(idle[name]), 2)}): ${fmt(idle.numakit.tunerCpuManaging / idle[name].tunerCpuManaging, 2)}x`,
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
