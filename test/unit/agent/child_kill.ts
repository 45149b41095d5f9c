// Child process of the agent's kill-at-every-step test: runs the agent on a fake machine (tree.ts)
// until it has bound and moved one process, then SIGTERMs it (the agent puts everything back),
// and SIGKILLs itself right after write point KILL_AT: a journal write made durable, the
// kernel.numa_balancing write, each thread's affinity set, the page move. Thread affinities are
// also kept in DIR/affinity/TID so that the parent can restore and check them after the kill.
// With KILL_AT 0 it runs to the end and prints the points it passed. Knobs are written with the
// kernel's manners (apply's fakeSystem: a number reads back with its newline).
//   argv: STATE_DIR KILL_AT; prints "dir DIR" and the JSON of numa_balancing's content first.
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import type { ThreadOps } from '../../../src/agent/ops.js';
import { runAgent } from '../../../src/agent/run.js';
import { killPoints } from '../../helpers/kill_points.js';
import { fakeSystem } from '../apply/fake_system.js';
import { busy, FakeMachine } from './tree.js';

const [stateDir, killAt] = process.argv.slice(2) as [string, string];
const m = new FakeMachine();
process.stdout.write(
  `dir ${m.dir}\n${JSON.stringify(readFileSync(join(m.dir, 'proc/sys/kernel/numa_balancing'), 'utf8'))}\n`,
);
mkdirSync(join(m.dir, 'affinity'));
m.add(
  busy(200, 'spin', 400, 1, 0, {
    threads: [
      { tid: 200, ticks: 0, cpu: 0, start: 7, cpus: [0, 1, 2, 3] },
      { tid: 201, ticks: 0, cpu: 0, start: 8, cpus: [0, 1, 2, 3] },
    ],
  }),
);
const kp = killPoints(Number(killAt), {
  knobRoots: [`${m.dir}/proc`],
  durableDirs: (d) => d === `${stateDir}/journal`,
});
const ops: ThreadOps = {
  ...m.ops,
  setAffinity(tid, cpus) {
    m.ops.setAffinity(tid, cpus);
    writeFileSync(join(m.dir, 'affinity', String(tid)), cpus.join(','));
    kp.point(`setAffinity ${tid} ${cpus.join(',')}`);
  },
  // The move's first batch is its write point (the later ones change nothing a restore could
  // put back: pages are not moved back); the SIGTERM below comes during that batch.
  movePages(pid, count, pages, nodes, status) {
    const n = m.ops.movePages(pid, count, pages, nodes, status);
    if (nodes !== null && !moved) {
      moved = true;
      kp.point(`movePages ${pid}`);
    }
    return n;
  },
};
let moved = false;
const signals = new EventEmitter();
let t = 0;
const done = runAgent(
  { ...DEFAULT_AGENT, stateDir, intervalMs: 20 },
  {
    root: m.root,
    sys: fakeSystem(m.dir),
    ops,
    log: () => {},
    signals,
    pageSize: 4096,
    now: () => t,
    selfPid: 99999,
    onReady: () => {
      t = 5000;
      m.tick(5, [1]);
    },
  },
);
const poll = setInterval(() => {
  if (m.calls.some((c) => c.startsWith('movePages'))) {
    clearInterval(poll);
    signals.emit('SIGTERM');
  }
}, 2);
await done;
process.stdout.write(`${kp.names.join('\n')}\n`);
