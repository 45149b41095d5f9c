#!/usr/bin/env node
// Start-up cost of `numakit topo --json` against bare Node (`node -e 0`), measured in the same
// run: alternating runs, median wall time of each, and the difference. Goal: at most 25 ms above
// bare Node (a command must not load what it does not use: no koffi, yaml, tar, prom-client).
//   node bench/topo-startup.mjs [RUNS] [-- extra numakit args, e.g. --example spark-2s]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The package's executable (package.json "bin": the bundle with its code cache, docs/startup.md).
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bin = fileURLToPath(new URL(`../${pkg.bin.numakit}`, import.meta.url));
const sep = process.argv.indexOf('--');
const runs = Number(process.argv[2] && process.argv[2] !== '--' ? process.argv[2] : 30);
const extra = sep >= 0 ? process.argv.slice(sep + 1) : [];

function time(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = [];
const topo = [];
time(['-e', '0']);
time([bin, ...extra, 'topo', '--json']); // warm the page cache
for (let i = 0; i < runs; i++) {
  base.push(time(['-e', '0']));
  topo.push(time([bin, ...extra, 'topo', '--json']));
}
const b = median(base);
const t = median(topo);
console.log(`runs: ${runs} each, alternating`);
console.log(`node -e 0:                 median ${b.toFixed(1)} ms`);
console.log(`numakit topo --json${extra.length ? ` (${extra.join(' ')})` : ''}: median ${t.toFixed(1)} ms`);
console.log(`difference: ${(t - b).toFixed(1)} ms (goal <= 25 ms); ratio ${(t / b).toFixed(2)}x`);
