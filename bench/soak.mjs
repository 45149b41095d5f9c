#!/usr/bin/env node
// Days, not minutes: `numakit serve` and `numakit agent --metrics` for a chosen time in one lab
// guest (2node with 1 CPU and 768 MiB a node) under churn (test/lab/guest-helpers/soak.mjs: short-lived
// processes at --rate a minute, every third in a cgroup created and removed for it; a large,
// misplaced busy process every --large-every seconds for the agent to move; threads started and
// ended; 20 concurrent scrapes and 4 slow clients every sample), sampled every --sample seconds.
// Prints each series' start, end, slope per hour and a PASS/FAIL against its stated limit
// (bench/soak_lib.mjs: memory flat, fds flat, CPU and scrape time not rising, journal and state
// directory bounded), writes soak.json and soak.svg (every series over time) under --out, and
// exits 1 when a limit fails. Not a timed test: run it on its own, after npm run build.
//   LAB_CACHE=... node bench/soak.mjs [--minutes 3] [--sample 5] [--rate 60] [--large-every 30]
//                 [--scrapers 20] [--slow 4] [--agent-memory-max 256M] [--out tmp/soak]
// The default (3 minutes) fits CI's lab time; a long run: --minutes 30 (or 480 for a night).
// Under TCG on a loaded 2-core host, budget boot + 1-2 minutes on top of --minutes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyse, parseSoakOutput, renderSvg, renderTable } from './soak_lib.mjs';

const argv = process.argv.slice(2);
const arg = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const minutes = Number(arg('--minutes', 3));
const repo = fileURLToPath(new URL('..', import.meta.url));
const out = arg('--out', join(repo, 'tmp', 'soak'));
const pass = ['--sample', '--rate', '--large-every', '--scrapers', '--slow', '--agent-memory-max'].flatMap((k) =>
  argv.includes(k) ? [k, arg(k)] : [],
);
const seconds = Math.round(minutes * 60);
const guest = `busybox ip link set lo up; node test/lab/guest-helpers/soak.mjs --seconds ${seconds} ${pass.join(' ')}`;
console.error(`soak: ${minutes} min in a 2node guest (TCG: boot and start-up take minutes more)`);
const loadBefore = loadavg();
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    'test/lab/cli.ts',
    '--topology',
    '2node',
    '--cpus',
    '1',
    '--mem',
    '768',
    '--timeout',
    String(Math.round(seconds * 1.25) + 1200),
    '--',
    guest,
  ],
  { cwd: repo, encoding: 'utf8', maxBuffer: 256 << 20 },
);
mkdirSync(out, { recursive: true });
// The guest's whole output (the lab's boot lines, the harness's SOAK-ERROR/SOAK-FATAL lines).
writeFileSync(join(out, 'guest.log'), `${r.stdout}\n--- stderr ---\n${r.stderr}`);
const parsed = parseSoakOutput(r.stdout);
for (const l of parsed?.errors ?? []) console.error(`soak: ${l}`);
if (parsed === null) {
  console.error(
    `soak: the guest reported nothing (exit ${r.status})\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
  );
  process.exit(1);
}
const run = parsed.run;
if (run.cutShort)
  console.error(
    `soak: the run ended after ${run.seconds.toFixed(0)} s of samples (exit ${r.status}): partial; the guest's output is in ${join(out, 'guest.log')}`,
  );
const a = analyse(run);
writeFileSync(join(out, 'soak.json'), `${JSON.stringify({ ...run, verdict: a }, null, 1)}\n`);
writeFileSync(join(out, 'soak.svg'), renderSvg(run, a));
const exits = Object.entries(run.daemons)
  .map(
    ([k, d]) => `${k} ${d.exit?.code ?? d.exit?.signal} (${d.lines} lines${k === 'agent' ? `, ${d.moved} moves` : ''})`,
  )
  .join(', ');
const c = run.counts;
process.stdout.write(
  `${renderTable(a)}workload: ${c.short} short-lived processes (${c.cgroups} in their own cgroup, ${c.cgroupErrors} cgroup errors), ${c.large} large misplaced, ${c.threads} threads; ${run.samples.length} samples; ${c.scrapeErrors} failed scrapes; ${c.slowDropped} slow clients dropped\n` +
    `exit on SIGTERM: ${exits}; journal after: ${run.journalAfter.files} file(s), ${run.journalAfter.bytes} bytes\n` +
    `sockets before any client -> after every client left: ${Object.keys(run.socketsAtStart ?? {})
      .map((k) => `${k} ${run.socketsAtStart[k]} -> ${run.socketsAfter?.[k] ?? '?'}`)
      .join(', ')}\n` +
    (run.agentMemoryMax === null
      ? ''
      : `agent under memory.max ${run.agentMemoryMax}: peak ${((run.agentMemoryPeak ?? NaN) / 2 ** 20).toFixed(0)} MiB; ${String(run.agentMemoryEvents).trim().replace(/\n/g, ', ')}\n`) +
    `host load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; wrote ${join(out, 'soak.json')} and ${join(out, 'soak.svg')}\n`,
);
const exitedWell = !run.cutShort && Object.values(run.daemons).every((d) => d.exit?.code === 0);
const socketsBack = Object.entries(run.socketsAtStart ?? {}).every(
  ([k, n]) => (run.socketsAfter?.[k] ?? Infinity) <= n + 1,
);
if (!socketsBack) console.error('soak: a daemon held more sockets after every client left than before any came');
if (!a.pass || !exitedWell || !socketsBack) process.exitCode = 1;
