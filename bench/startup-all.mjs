#!/usr/bin/env node
// Start-up of every numakit command against bare Node (`node -e 0`), measured in the same run:
// each round runs bare Node and then every command once, in an order rotated from round to
// round, so that load from other work on the machine falls on all of them alike. Prints per
// command the median wall time, the spread (25th-75th percentile) and the median of the
// per-round differences from bare Node, in wall time and in CPU time (user + system of the
// process, for runs under Node): on a loaded machine wall time mostly measures the wait for a
// core, CPU time what the command costs. Goal: <= 25 ms over Node for topo, stat, doctor and the
// overview on the shipped examples (docs/startup.md).
//   node bench/startup-all.mjs [--runs N] [--bin PATH] [--compare PATH] [--only NAME,NAME] [--json]
// The default is the package's executable (package.json "bin": dist/cli/numakit.cjs, the bundle
// with its code cache); --bin runs another build of the CLI (dist/cli/bin.js, the same program
// unbundled; a single executable; an older build); --compare runs a second build in the same
// rounds (before/after under the same load), its rows marked with '='.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    bin: { type: 'string' },
    compare: { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean' },
  },
  strict: true,
});
const runs = Number(values.runs);
if (!(runs >= 1)) throw new Error(`--runs ${values.runs}: expected a positive number`);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bin = values.bin ?? fileURLToPath(new URL(`../${pkg.bin.numakit}`, import.meta.url));
// A .js/.cjs/.mjs file runs under this Node; anything else is an executable (a SEA binary).
const launcher = (b) => (/\.[cm]?js$/.test(b) ? (args) => [process.execPath, [b, ...args]] : (args) => [b, args]);
const state = mkdtempSync(join(tmpdir(), 'numakit-startup-'));

const EX = ['--example', 'spark-2s'];
const COMMANDS = [
  { name: 'version', args: ['--version'] },
  { name: 'help', args: ['--help'] },
  { name: 'overview', args: EX, goal: true },
  { name: 'topo', args: [...EX, 'topo'], goal: true },
  { name: 'topo --json', args: [...EX, 'topo', '--json'], goal: true },
  { name: 'stat', args: [...EX, 'stat'], goal: true },
  { name: 'stat -m', args: [...EX, 'stat', '-m'], goal: true },
  { name: 'stat --procs', args: [...EX, 'stat', '--procs'] },
  { name: 'doctor', args: [...EX, 'doctor'], goal: true, codes: [0, 1] },
  { name: 'top', args: [...EX, 'top', '--iterations', '1'] },
  { name: 'examples', args: ['examples'] },
  { name: 'plan', args: [...EX, 'plan', 'spark-standalone'] },
  { name: 'apply (dry run)', args: [...EX, 'apply', '--profile', 'database'] },
  { name: 'journal', args: ['journal', '--state-dir', state] },
  { name: 'rollback --dry-run', args: ['rollback', '--dry-run', '--state-dir', state], codes: [0, 1] },
  { name: 'run --hardware', args: [...EX, 'run', '--hardware'] },
  { name: 'completion bash', args: ['completion', 'bash'], optional: true },
];

// CPU time: a preloaded script writes process.cpuUsage() (user + system, microseconds, the whole
// process from its start) at exit. Only for runs under this Node (a .js bin); NaN otherwise.
const cpuFile = join(state, 'cpu');
const preload = join(state, 'cpu.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(cpuFile)}, String((u.user + u.system) / 1000)); });\n`,
);

function time(cmd, args, codes = [0]) {
  const underNode = cmd === process.execPath;
  const a = underNode ? ['--require', preload, ...args] : args;
  rmSync(cpuFile, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, a, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!codes.includes(r.status)) return { ms, error: `exited ${r.status}: ${String(r.stderr).trim().split('\n')[0]}` };
  const cpu = underNode && existsSync(cpuFile) ? Number(readFileSync(cpuFile, 'utf8')) : NaN;
  return { ms, cpu };
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo);
};

const only = values.only?.split(',');
let list = COMMANDS.filter((c) => !only || only.includes(c.name)).flatMap((c) => [
  { ...c, launch: launcher(bin) },
  ...(values.compare ? [{ ...c, name: `= ${c.name}`, launch: launcher(values.compare) }] : []),
]);
// Commands this build lacks (an older dist) are dropped after one try, not failed.
list = list.filter((c) => {
  const r = time(...c.launch(c.args), c.codes);
  if (r.error && c.optional) return false;
  if (r.error) throw new Error(`numakit ${c.args.join(' ')}: ${r.error}`);
  return true;
});
time(process.execPath, ['-e', '0']);
const load0 = loadavg()[0];
const base = [];
const baseCpu = [];
const samples = new Map(list.map((c) => [c.name, []]));
const diffs = new Map(list.map((c) => [c.name, []]));
const cpus = new Map(list.map((c) => [c.name, []]));
for (let round = 0; round < runs; round++) {
  const b = time(process.execPath, ['-e', '0']);
  base.push(b.ms);
  baseCpu.push(b.cpu);
  for (let k = 0; k < list.length; k++) {
    const c = list[(k + round) % list.length];
    const r = time(...c.launch(c.args), c.codes);
    if (r.error) throw new Error(`numakit ${c.args.join(' ')}: ${r.error}`);
    samples.get(c.name).push(r.ms);
    diffs.get(c.name).push(r.ms - b.ms);
    cpus.get(c.name).push(r.cpu - b.cpu);
  }
}
const load1 = loadavg()[0];
rmSync(state, { recursive: true, force: true });

const rows = list.map((c) => {
  const xs = samples.get(c.name);
  return {
    name: c.name,
    goal: c.goal === true,
    median: quantile(xs, 0.5),
    p25: quantile(xs, 0.25),
    p75: quantile(xs, 0.75),
    overNode: quantile(diffs.get(c.name), 0.5),
    cpuOverNode: quantile(cpus.get(c.name), 0.5),
  };
});
const node = {
  median: quantile(base, 0.5),
  p25: quantile(base, 0.25),
  p75: quantile(base, 0.75),
  cpu: quantile(baseCpu, 0.5),
};
if (values.json) {
  console.log(JSON.stringify({ runs, bin, loadavg: [load0, load1], node, commands: rows }, null, 2));
} else {
  const f = (x) => x.toFixed(1).padStart(6);
  console.log(
    `${runs} rounds, each: node -e 0, then every command once (order rotated); load average ${load0.toFixed(2)} -> ${load1.toFixed(2)}`,
  );
  console.log(`bin: ${bin}${values.compare ? `; rows '= ...': ${values.compare}` : ''}`);
  console.log('wall ms: median, p25, p75, median over node -e 0 in the same round; cpu ms (user+sys) over node -e 0');
  console.log(
    `${'command'.padEnd(22)} ${'median'.padStart(6)}  ${'p25'.padStart(6)}  ${'p75'.padStart(6)}  ${'over'.padStart(6)}  ${'cpu+'.padStart(6)}  ratio`,
  );
  console.log(
    `${'node -e 0'.padEnd(22)} ${f(node.median)}  ${f(node.p25)}  ${f(node.p75)}  ${''.padStart(6)}  ${f(node.cpu)} (cpu)`,
  );
  for (const r of rows) {
    const mark = r.goal ? (r.overNode <= 25 ? '  ok (goal <= 25)' : '  over the goal (<= 25)') : '';
    console.log(
      `${r.name.padEnd(22)} ${f(r.median)}  ${f(r.p25)}  ${f(r.p75)}  ${f(r.overNode)}  ${f(r.cpuOverNode)}  ${(r.median / node.median).toFixed(2)}x${mark}`,
    );
  }
}
