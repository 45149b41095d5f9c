#!/usr/bin/env node
// serve's scrape with 10,000 processes that come and go: its time and memory must stay flat over
// many scrapes (no state kept for a process that is gone), and grow with the number of processes
// no faster than linearly. A synthetic machine (the four-node fixture plus --procs processes,
// each a copy of one of its own with its pid), on which every scrape replaces --churn of the
// processes by new pids; a run with --procs / 100 processes is the baseline, in the same run.
// Prints per size: the median scrape time of the first and the last third of --scrapes, the V8
// heap after a full collection after the first and the last scrape, and the ratios. Not a timed
// test: run it on its own, after npm run build.
//   node --expose-gc bench/serve-10k.mjs [--procs 10000] [--scrapes 30] [--churn 0.1] [--top 10]
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const procs = arg('--procs', 10_000);
const scrapes = arg('--scrapes', 30);
const churn = arg('--churn', 0.1);
const top = arg('--top', 10);
if (typeof globalThis.gc !== 'function') {
  console.error('serve-10k: run it as node --expose-gc bench/serve-10k.mjs');
  process.exit(2);
}
const repo = fileURLToPath(new URL('..', import.meta.url));
const { Scraper } = await import(join(repo, 'dist/serve/scrape.js'));
const { openRoot } = await import(join(repo, 'dist/sysfs/root.js'));
const FIXTURE = join(repo, 'test/fixtures/stat/four-node');
const TEMPLATE = '1201'; // postgres: two threads, memory on two nodes

function addProcess(dir, pid) {
  const from = join(FIXTURE, 'proc', TEMPLATE);
  const to = join(dir, 'proc', String(pid));
  mkdirSync(join(to, 'task', String(pid)), { recursive: true });
  for (const f of ['cmdline', 'comm', 'numa_maps', 'status']) writeFileSync(join(to, f), readFileSync(join(from, f)));
  const stat = readFileSync(join(from, 'stat'), 'utf8').replace(/^\d+ /, `${pid} `);
  writeFileSync(join(to, 'stat'), stat);
  writeFileSync(join(to, 'task', String(pid), 'stat'), stat);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const heapMiB = () => {
  globalThis.gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

function measure(n) {
  const base = mkdtempSync(join(tmpdir(), 'numakit-serve-10k-'));
  const dir = join(base, 'machine');
  cpSync(FIXTURE, dir, { recursive: true });
  let next = 100_000;
  const live = [];
  for (let i = 0; i < n; i++) {
    addProcess(dir, next);
    live.push(next++);
  }
  const scraper = new Scraper(openRoot(dir), { top, doctorIntervalMs: 3_600_000, timeoutMs: 60_000, mapsTtlMs: 0 });
  const times = [];
  let heapFirst = null;
  for (let s = 0; s < scrapes; s++) {
    const t0 = performance.now();
    const sc = scraper.scrape();
    times.push(performance.now() - t0);
    if (sc.processes === undefined && s === 0) console.error('serve-10k: no processes collected');
    if (s === 0) heapFirst = heapMiB();
    // Churn: the oldest processes end, as many new ones start.
    for (const pid of live.splice(0, Math.round(n * churn)))
      rmSync(join(dir, 'proc', String(pid)), { recursive: true });
    while (live.length < n) {
      addProcess(dir, next);
      live.push(next++);
    }
  }
  const heapLast = heapMiB();
  rmSync(base, { recursive: true, force: true });
  const third = Math.max(1, Math.floor(scrapes / 3));
  return {
    n,
    first: median(times.slice(1, third + 1)),
    last: median(times.slice(-third)),
    heapFirst,
    heapLast,
  };
}

const small = measure(Math.max(1, Math.round(procs / 100)));
const big = measure(procs);
const f = (x, d = 1) => x.toFixed(d);
console.log('processes  scrape ms (first third, last third)  last/first  heap MiB after gc (first, last)  last-first');
for (const r of [small, big])
  console.log(
    `${String(r.n).padStart(9)}  ${f(r.first).padStart(10)} ${f(r.last).padStart(10)}  ${f(r.last / r.first, 2).padStart(20)}  ${f(r.heapFirst).padStart(14)} ${f(r.heapLast).padStart(8)}  ${f(r.heapLast - r.heapFirst, 2).padStart(18)}`,
  );
console.log(
  `time per process: ${f((big.last / big.n) * 1000, 2)} us at ${big.n} vs ${f((small.last / small.n) * 1000, 2)} us at ${small.n} (ratio ${f(big.last / big.n / (small.last / small.n), 2)}; <= ~1: linear or better); ${scrapes} scrapes, ${churn * 100}% of the processes replaced between scrapes, --top ${top}`,
);
