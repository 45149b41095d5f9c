#!/usr/bin/env node
// numakit fleet report at scale: N synthetic hosts' snapshots (bench/fleet_hosts.mjs: the
// shipped examples with variations, 60% 2-socket Spark workers) reported with --json. Goal
// (issue 17): 1,000 hosts in under 10 s and under 1 GiB RSS on a 2-core machine. Baseline,
// measured in the same run: what one would do without it, `numakit --root HOST.tar.gz doctor
// --json` host by host (timed on a sample, scaled to N).
//   node bench/fleet-report.mjs [HOSTS] [--sample K] [--keep DIR]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticFleet } from './fleet_hosts.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const hosts = Number(args.find((a) => /^\d+$/.test(a)) ?? 1000);
const sample = Number(opt('--sample', 10));
const keep = opt('--keep', undefined);
const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const bin = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));

const dir = keep ?? mkdtempSync(join(tmpdir(), 'numakit-fleet-bench-'));
mkdirSync(dir, { recursive: true });
try {
  if (readdirSync(dir).filter((f) => f.endsWith('.tar.gz')).length !== hosts) {
    const t0 = Date.now();
    writeSyntheticFleet(dir, hosts);
    console.log(`generated ${hosts} snapshots in ${((Date.now() - t0) / 1000).toFixed(1)} s (not timed below)`);
  }
  // The report runs in a child whose exit prints its peak RSS (worker threads included).
  const script = `const { main } = await import(${JSON.stringify(main)});
let bytes = 0; const t0 = performance.now();
const code = await main(['fleet', 'report', '--json', ${JSON.stringify(dir)}], { out: (t) => { bytes += t.length; }, err: (t) => process.stderr.write(t), isTTY: false });
const u = process.resourceUsage();
console.log(JSON.stringify({ code, ms: performance.now() - t0, bytes, maxRssKiB: u.maxRSS, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }));`;
  const childDir = mkdtempSync(join(tmpdir(), 'numakit-fleet-bench-child-'));
  writeFileSync(join(childDir, 'report.mjs'), script);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(childDir, 'report.mjs')], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const wall = performance.now() - t0;
  rmSync(childDir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`fleet report exited ${r.status}: ${r.stderr}`);
  const m = JSON.parse(r.stdout.trim().split('\n').pop());

  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.tar.gz'))
    .sort()
    .slice(0, sample);
  const b0 = performance.now();
  for (const f of files) {
    const x = spawnSync(process.execPath, [bin, '--root', join(dir, f), 'doctor', '--json'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (x.status !== 0 && x.status !== 1) throw new Error(`doctor on ${f} exited ${x.status}`);
  }
  const perHost = (performance.now() - b0) / files.length;

  const rssMiB = m.maxRssKiB / 1024;
  console.log(
    `machine: ${availableParallelism()} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `fleet report --json, ${hosts} hosts: ${(wall / 1000).toFixed(2)} s wall (${(m.ms / 1000).toFixed(2)} s in main), peak RSS ${rssMiB.toFixed(0)} MiB, ${(m.cpuMs / 1000).toFixed(2)} s CPU (all threads), ${(m.bytes / 1024).toFixed(0)} KiB of JSON`,
  );
  console.log(
    `baseline, numakit --root HOST.tar.gz doctor --json one host at a time: ${perHost.toFixed(0)} ms/host (sample of ${files.length}) -> ${((perHost * hosts) / 1000).toFixed(0)} s for ${hosts}`,
  );
  console.log(
    `ratio: ${((perHost * hosts) / wall).toFixed(1)}x faster than the baseline; goal < 10 s and < 1024 MiB: ${wall < 10_000 && rssMiB < 1024 ? 'met' : 'NOT met'}`,
  );
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
