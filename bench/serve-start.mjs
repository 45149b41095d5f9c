#!/usr/bin/env node
// Time to listen of `numakit serve`: from the spawn of the package's executable to the line that
// says where it serves, then SIGTERM. Bare Node (`node -e 0`) is measured in the same rounds, and
// a second build (--compare, e.g. an older dist/) too, alternating, so load from other work on
// the machine falls on all alike. Prints per build the median wall time, the spread (25th-75th
// percentile) and the median of the per-round differences from bare Node.
//   node bench/serve-start.mjs [--runs N] [--bin PATH] [--compare PATH] [--root DIR]
// --root serves a capture (default: this machine).
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    bin: { type: 'string', default: fileURLToPath(new URL('../dist/cli/numakit.cjs', import.meta.url)) },
    compare: { type: 'string' },
    root: { type: 'string' },
  },
  strict: true,
});

/** ms from spawn to the "numakit serve: http" line; the server is then stopped. */
function timeToListen(bin) {
  const args = [bin, ...(values.root ? ['--root', values.root] : []), 'serve', '--listen', '127.0.0.1:0'];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.stdout.on('data', (d) => {
      out += d;
      if (!/numakit serve: https?:\/\//.test(out)) return;
      const ms = performance.now() - t0;
      p.once('exit', () => resolve(ms));
      p.kill('SIGTERM');
    });
    p.once('exit', (code) => {
      if (!/numakit serve: https?:\/\//.test(out)) reject(new Error(`${bin}: serve exited ${code}: ${err}`));
    });
  });
}

function bare() {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t0;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

const builds = [values.bin, ...(values.compare ? [values.compare] : [])];
const times = builds.map(() => []);
const overs = builds.map(() => []);
const load = [];
for (let round = 0; round < Number(values.runs); round++) {
  const node = bare();
  for (let k = 0; k < builds.length; k++) {
    const i = (k + round) % builds.length;
    const ms = await timeToListen(builds[i]);
    times[i].push(ms);
    overs[i].push(ms - node);
  }
  load.push(loadavg()[0]);
}
for (let i = 0; i < builds.length; i++)
  console.log(
    `${i === 0 ? ' ' : '='} ${builds[i]}: time to listen median ${quantile(times[i], 0.5).toFixed(0)} ms (${quantile(times[i], 0.25).toFixed(0)}-${quantile(times[i], 0.75).toFixed(0)}), over node -e 0 ${quantile(overs[i], 0.5).toFixed(0)} ms`,
  );
console.log(
  `runs: ${values.runs}; load average during: ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)}`,
);
