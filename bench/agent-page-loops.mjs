#!/usr/bin/env node
// The agent mover's per-page loops alone (src/agent/move_batch.ts with a fake move_pages that
// answers at once), in a 4node-asym lab guest (TCG, where V8's compilers are slow enough to
// see): user CPU ms of 25 batches of 4096 pages (102,400 pages), queried spans then direct ones,
// three rounds each in a fresh process: round 0 is the first time the code runs (compiles
// included), rounds 1-2 run it warm. --before DIR (a copy of an earlier dist/ inside the repo)
// runs that build's loops too, in the same guest, alternated. Not a timed test.
//   node bench/agent-page-loops.mjs [--before DIR] [--runs 2]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const before = arg('--before', null);
const runs = Number(arg('--runs', 2));
const repo = fileURLToPath(new URL('..', import.meta.url));

const dists = ['dist', ...(before === null ? [] : [before])];
const script = Array.from({ length: runs }, () => dists.map((d) => `node test/lab/guest-helpers/page_loops.mjs ${d}`))
  .flat()
  .join('\n');
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', 'test/lab/cli.ts', '--topology', '4node-asym', '--mem', '1000', '--timeout', '900', '--', script],
  { cwd: repo, encoding: 'utf8', maxBuffer: 16 << 20 },
);
const rows = r.stdout
  .split('\n')
  .filter((l) => l.startsWith('LOOPS '))
  .map((l) => JSON.parse(l.slice(6)));
if (rows.length !== runs * dists.length * 6) {
  console.error(
    `bench: ${rows.length} of ${runs * dists.length * 6} rounds reported\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`,
  );
  process.exitCode = 1;
}
console.log('build, spans: user CPU ms for 102,400 pages, round 0 (first run) / 1 / 2, one process per line');
const key = (x) => `${x.dist} ${x.spans}`;
const lines = [];
for (let i = 0; i < rows.length; i += 3)
  lines.push(
    `${key(rows[i]).padEnd(28)} ${rows
      .slice(i, i + 3)
      .map((x) => x.userMs.toFixed(1))
      .join(' / ')}`,
  );
console.log(lines.join('\n'));
