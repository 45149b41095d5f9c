// Kill at every step, the agent: SIGKILLed right after each of its write points (each journal
// write made durable, the kernel.numa_balancing write, each thread's affinity set, the page
// move, and each step of the restore it makes on SIGTERM), one child process per point;
// then `agent restore` must give every thread its affinity of before and numa_balancing its
// exact old content. The points are counted by a run that is not killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { readJournal } from '../../../src/actuate/journal.js';
import type { ThreadOps } from '../../../src/agent/ops.js';
import { restoreLeftovers } from '../../../src/agent/restore.js';
import { readTaskStat } from '../../../src/sysfs/proc_task_stat.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { bundleChild, type ChildBundle } from '../../helpers/child_bundle.js';
import { withFileFaults } from '../../helpers/file_faults.js';
import { fakeSystem } from '../apply/fake_system.js';

let CHILD: ChildBundle;
before(() => void (CHILD = bundleChild(fileURLToPath(new URL('./child_kill.ts', import.meta.url)))));
after(() => CHILD.remove());

async function child(
  stateDir: string,
  killAt: number,
): Promise<{ signal: string | null; code: number | null; dir: string; knob: string; points: string[]; err: string }> {
  const p = spawn(process.execPath, [CHILD.file, stateDir, String(killAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  const { code, signal } = await new Promise<{ code: number | null; signal: string | null }>((r) =>
    p.on('close', (code, signal) => r({ code, signal })),
  );
  const [first, knob, ...points] = out.trim().split('\n');
  return { signal, code, dir: first!.replace(/^dir /, ''), knob: JSON.parse(knob!) as string, points, err };
}

/** What `agent restore` uses after the kill: the fake /proc for start times, DIR/affinity/TID for affinities. */
function restoreOps(dir: string): Pick<ThreadOps, 'threadStart' | 'getAffinity' | 'setAffinity'> {
  const root = openRoot(dir);
  const file = (tid: number) => join(dir, 'affinity', String(tid));
  return {
    threadStart: (pid, tid) => readTaskStat(root, pid, tid)?.startTicks ?? null,
    getAffinity: (tid) =>
      existsSync(file(tid)) ? readFileSync(file(tid), 'utf8').split(',').map(Number) : [0, 1, 2, 3],
    setAffinity: (tid, cpus) => writeFileSync(file(tid), cpus.join(',')),
  };
}

function assertRestored(dir: string, knob: string, stateDir: string, what: string): void {
  const ops = restoreOps(dir);
  withFileFaults(
    () => undefined,
    () => restoreLeftovers(fakeSystem(dir), { stateDir, ops }),
    { noSync: true },
  );
  assert.deepEqual(
    [ops.getAffinity(200), ops.getAffinity(201)],
    [
      [0, 1, 2, 3],
      [0, 1, 2, 3],
    ],
    `${what}: affinities`,
  );
  assert.equal(readFileSync(join(dir, 'proc/sys/kernel/numa_balancing'), 'utf8'), knob, `${what}: numa_balancing`);
  assert.deepEqual(readJournal(stateDir).corrupt, [], `${what}: journal`);
}

test('the agent killed after each write point: agent restore puts back every affinity and numa_balancing', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-agent-state-'));
  const full = await child(stateDir, 0);
  assert.equal(full.code, 0, full.err);
  rmSync(full.dir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
  const points = full.points;
  assert.deepEqual(
    points.filter((p) => !p.startsWith('durable')),
    [
      'write <fake>/proc/sys/kernel/numa_balancing',
      'setAffinity 200 0,2',
      'setAffinity 201 0,2',
      'movePages 200',
      'setAffinity 201 0,1,2,3',
      'setAffinity 200 0,1,2,3',
      'write <fake>/proc/sys/kernel/numa_balancing',
    ].map((p) => p.replace('<fake>', full.dir)),
  );
  let next = 1;
  const worker = async () => {
    for (let k = next++; k <= points.length; k = next++) {
      const sd = mkdtempSync(join(tmpdir(), 'numakit-agent-state-'));
      const r = await child(sd, k);
      assert.equal(r.signal, 'SIGKILL', `point ${k} (${points[k - 1]}): ${r.err}`);
      assertRestored(r.dir, r.knob, sd, `killed after point ${k}: ${points[k - 1]!.replace(r.dir, '')}`);
      rmSync(r.dir, { recursive: true, force: true });
      rmSync(sd, { recursive: true, force: true });
    }
  };
  await Promise.all([worker(), worker()]);
  process.stdout.write(`# agent: killed after each of ${points.length} write points\n`);
});
