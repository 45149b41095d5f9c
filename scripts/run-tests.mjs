#!/usr/bin/env node
// Runs Node's test runner on an explicit file list. On Node 20 a directory or quoted glob
// finds no .ts files and "passes" with 0 tests, so the list is built here.
//   node scripts/run-tests.mjs unit   -> test/**/*.test.ts outside test/lab
//   node scripts/run-tests.mjs lab    -> test/lab/**/*.lab.test.ts
//   node scripts/run-tests.mjs dist   -> test/**/*.dist.test.ts (npm pack and install; CI)
//   extra arguments are passed to node --test (e.g. --test-name-pattern=topo)
// The lab suite runs one node --test per file, in sequence, and ends with a table of each file's
// wall time and result (CI's log tail shows where the time went); it fails if any file failed.
import { readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const suite = process.argv[2] ?? 'unit';
const extra = process.argv.slice(3);

function walk(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === 'fixtures' || name === 'golden' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const all = walk('test');
const special = ['lab', 'dist'];
const files = special.includes(suite)
  ? all.filter((f) => f.endsWith(`.${suite}.test.ts`))
  : all.filter((f) => f.endsWith('.test.ts') && !special.some((s) => f.endsWith(`.${s}.test.ts`)));
if (files.length === 0) {
  console.error(`run-tests: no test files found for suite '${suite}'`);
  process.exit(1);
}
const nodeTest = (list) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', ...extra, ...list], { stdio: 'inherit' });

if (suite !== 'lab') process.exit(nodeTest(files).status ?? 1);

const rows = [];
const t0 = performance.now();
for (const file of files) {
  const start = performance.now();
  const r = nodeTest([file]);
  const result = r.status === 0 ? 'pass' : r.signal ? `FAIL (${r.signal})` : `FAIL (exit ${r.status})`;
  rows.push({ file, seconds: (performance.now() - start) / 1000, load: loadavg()[0].toFixed(1), result });
}
const minutes = (s) => `${(s / 60).toFixed(1)} min`;
const width = Math.max(...rows.map((r) => r.file.length));
console.log(`\nlab suite: wall time per file (load: the host's 1-minute load average when the file ended)`);
for (const r of rows)
  console.log(
    `${r.file.padEnd(width)}  ${`${r.seconds.toFixed(0)} s`.padStart(8)}  load ${r.load.padStart(4)}  ${r.result}`,
  );
const failed = rows.filter((r) => r.result !== 'pass').length;
console.log(
  `${'total'.padEnd(width)}  ${minutes((performance.now() - t0) / 1000).padStart(8)}  ${failed} of ${rows.length} failed`,
);
process.exit(failed > 0 ? 1 : 0);
