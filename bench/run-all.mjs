#!/usr/bin/env node
// Runs every benchmark in bench/ that needs no lab guest, one after the other.
// The lab benchmarks (agent-vs-numad) are run on their own: see their headers.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const skip = new Set(['run-all.mjs']);
for (const f of readdirSync(dir)
  .filter((n) => n.endsWith('.mjs') && !skip.has(n) && !n.includes('agent'))
  .sort()) {
  console.log(`\n=== bench/${f}`);
  const r = spawnSync(process.execPath, [`${dir}${f}`], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}
