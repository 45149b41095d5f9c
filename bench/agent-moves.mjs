#!/usr/bin/env node
// What a move costs the numakit agent, move after move: in one 4node-asym lab guest (TCG), one
// agent and --moves misplaced processes of --mib MB one after the other (memory on node 1,
// threads on node 0, node 1's CPU busy: as bench/agent-vs-numad.mjs's "misplaced"), and per move
// the agent's CPU seconds from the process's start until 2 s after the move was logged: user (its
// own) and system (mostly the kernel's page copy), in all and on its main thread. The first move
// is the first time the agent runs its acting code (V8 compiles it then, once in the agent's
// life); the later ones are what a move costs an agent that has been running. --before DIR (a copy
// of an earlier dist/ inside the repo, e.g. cp -r dist tmp/dist-before) runs that build too, and
// --rounds alternates them. Not a timed test: run it on its own, after npm run build.
//   node bench/agent-moves.mjs [--mib 400] [--moves 3] [--rounds 1] [--before DIR] [--json FILE]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : d);
const mib = Number(arg('--mib', 400));
const moves = Number(arg('--moves', 3));
const rounds = Number(arg('--rounds', 1));
const before = arg('--before', null);
const repo = fileURLToPath(new URL('..', import.meta.url));
const builds = [['numakit', null], ...(before === null ? [] : [['numakit-before', `${before}/cli/numakit.cjs`]])];
const script = Array.from({ length: rounds }, () =>
  builds.map(
    ([label, cli]) =>
      `node test/lab/guest-helpers/agent_moves.mjs --label ${label}${cli === null ? '' : ` --cli ${cli}`} --mib ${mib} --moves ${moves}`,
  ),
)
  .flat()
  .join('\n');
const load0 = loadavg();
console.error(
  `bench: ${rounds * builds.length} agents x ${moves} moves of ${mib} MB in one 4node-asym guest (TCG: minutes)`,
);
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    'test/lab/cli.ts',
    '--topology',
    '4node-asym',
    '--mem',
    '1000',
    '--timeout',
    String(rounds * builds.length * moves * 120 + 300),
    '--',
    script,
  ],
  { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 },
);
const lines = r.stdout.split('\n').filter((l) => l.startsWith('{"label"'));
if (arg('--json', null) !== null) writeFileSync(arg('--json', null), lines.map((l) => `${l}\n`).join(''));
if (lines.length !== rounds * builds.length * moves) {
  console.error(
    `bench: ${lines.length} of ${rounds * builds.length * moves} moves reported\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
  );
  process.exitCode = 1;
}
const rows = [['build', 'move', 'window', 'moved', 'user (main thread)', 'system', 'other threads, user']];
for (const x of lines.map((l) => JSON.parse(l))) {
  rows.push([
    x.label,
    String(x.move),
    `${x.seconds.toFixed(1)} s`,
    `${x.pages} pages in ${(x.migrateMs / 1000).toFixed(1)} s, ${x.batches} batches`,
    `${x.all.user.toFixed(2)} (${x.main.user.toFixed(2)})`,
    x.all.sys.toFixed(2),
    x.otherThreadsUser.toFixed(2),
  ]);
}
const w = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
for (const row of rows)
  console.log(
    row
      .map((c, i) => c.padEnd(w[i]))
      .join('  ')
      .trimEnd(),
  );
console.log(
  `host load average: ${load0.map((x) => x.toFixed(1)).join(' ')} before, ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} after`,
);
