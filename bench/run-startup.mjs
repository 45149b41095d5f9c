#!/usr/bin/env node
// `numakit run -- /bin/true` against `node -e 0` and `numactl -- /bin/true`, measured in the same
// rounds (the order rotated from round to round, so that load from other work falls on all alike).
// Goal (issue 25): numakit run at most 25 ms of wall time over node -e 0, median of the per-round
// differences. Also the CPU each launch costs, from /proc/self/schedstat (nanoseconds on a CPU,
// kept across exec: `numakit run -- cat /proc/self/schedstat` reads numakit's time and cat's), which
// on a loaded machine says more than wall time.
//   node bench/run-startup.mjs [--runs N] [--bin PATH] [--compare PATH] [--json]
// --bin: another build of the CLI (default: the package's executable, dist/cli/numakit.cjs);
// --compare: a second build in the same rounds (before/after under the same load).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    bin: { type: 'string' },
    compare: { type: 'string' },
    json: { type: 'boolean' },
  },
  strict: true,
});
const runs = Number(values.runs);
if (!(runs >= 1)) throw new Error(`--runs ${values.runs}: expected a positive number`);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bin = values.bin ?? fileURLToPath(new URL(`../${pkg.bin.numakit}`, import.meta.url));
const hasNumactl = spawnSync('numactl', ['--', '/bin/true']).status === 0;

const SCHED = "process.stdout.write(require('node:fs').readFileSync('/proc/self/schedstat', 'utf8'))";
const rows = [
  { name: 'node -e 0', wall: [process.execPath, ['-e', '0']], cpu: [process.execPath, ['-e', SCHED]] },
  ...(hasNumactl
    ? [
        {
          name: 'numactl -- /bin/true',
          wall: ['numactl', ['--', '/bin/true']],
          cpu: ['numactl', ['--', 'cat', '/proc/self/schedstat']],
        },
      ]
    : []),
  ...[bin, ...(values.compare ? [values.compare] : [])].map((b, i) => ({
    name: `${i === 0 ? '' : '= '}numakit run -- /bin/true`,
    wall: [process.execPath, [b, 'run', '--', '/bin/true']],
    cpu: [process.execPath, [b, 'run', '--', 'cat', '/proc/self/schedstat']],
  })),
];

function wall([cmd, args]) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function cpu([cmd, args]) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}`);
  return Number(r.stdout.trim().split(/\s+/)[0]) / 1e6;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (const r of rows) wall(r.wall); // warm the page cache
const load0 = loadavg()[0];
const data = rows.map(() => ({ wall: [], over: [], cpu: [], cpuOver: [] }));
for (let round = 0; round < runs; round++) {
  const w = new Array(rows.length);
  const c = new Array(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const i = (k + round) % rows.length;
    w[i] = wall(rows[i].wall);
    c[i] = cpu(rows[i].cpu);
  }
  rows.forEach((_, i) => {
    data[i].wall.push(w[i]);
    data[i].over.push(w[i] - w[0]);
    data[i].cpu.push(c[i]);
    data[i].cpuOver.push(c[i] - c[0]);
  });
}
const load1 = loadavg()[0];
const result = rows.map((r, i) => ({
  name: r.name,
  wallMs: median(data[i].wall),
  overNodeMs: median(data[i].over),
  cpuMs: median(data[i].cpu),
  cpuOverNodeMs: median(data[i].cpuOver),
}));
if (values.json) {
  console.log(JSON.stringify({ runs, bin, loadavg: [load0, load1], rows: result }, null, 2));
} else {
  const f = (x) => x.toFixed(1).padStart(7);
  console.log(`${runs} rounds, load average ${load0.toFixed(2)} -> ${load1.toFixed(2)}; bin: ${bin}`);
  console.log(`${'command'.padEnd(28)}   wall  over node  ratio     cpu  cpu over node`);
  for (const r of result) {
    const goal = r.name.endsWith('numakit run -- /bin/true')
      ? r.overNodeMs <= 25
        ? '  ok (goal <= 25)'
        : '  over the goal (<= 25)'
      : '';
    console.log(
      `${r.name.padEnd(28)} ${f(r.wallMs)} ${f(r.overNodeMs)}  ${(r.wallMs / result[0].wallMs).toFixed(2).padStart(5)}x ${f(r.cpuMs)} ${f(r.cpuOverNodeMs)}${goal}`,
    );
  }
}
