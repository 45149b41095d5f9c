#!/usr/bin/env node
// Runs Node's test runner on an explicit file list. On Node 20 a directory or quoted glob
// finds no .ts files and "passes" with 0 tests, so the list is built here.
//   node scripts/run-tests.mjs unit   -> test/**/*.test.ts outside test/lab
//   node scripts/run-tests.mjs lab    -> test/lab/**/*.lab.test.ts
//   node scripts/run-tests.mjs dist   -> test/**/*.dist.test.ts (npm pack and install; CI)
//   extra arguments are passed to node --test (e.g. --test-name-pattern=topo)
import { readdirSync, statSync } from 'node:fs';
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
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...extra, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
