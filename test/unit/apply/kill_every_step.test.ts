// Kill at every step: `apply --yes` (the engine, on a fake tree) is SIGKILLed right after each
// of its write points, one real child process per point: each journal write made durable, each
// knob write, each --persist file written; then `rollback` must leave every knob and every file
// byte for byte as before. The same for a rollback killed after each of its own write points,
// then run again. Every point, not a sample: the points are counted by a run that is not killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { PersistFile } from '../../../src/actuate/apply.js';
import { applyPlan } from '../../../src/actuate/apply.js';
import { readJournal } from '../../../src/actuate/journal.js';
import { rollback } from '../../../src/actuate/rollback.js';
import { planChanges } from '../../../src/actuate/targets.js';
import type { Change } from '../../../src/model/change.js';
import { bundleChild, type ChildBundle } from '../../helpers/child_bundle.js';
import { withFileFaults } from '../../helpers/file_faults.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

let CHILD: ChildBundle;
before(() => void (CHILD = bundleChild(fileURLToPath(new URL('./child_kill.ts', import.meta.url)))));
after(() => CHILD.remove());
const CHANGES: Change[] = [
  { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
  { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'never', reason: 'r' },
  { kind: 'irq-affinity', target: 40, value: '0', reason: 'r' },
  { kind: 'service', target: 'irqbalance', value: 'stopped', reason: 'r' },
  { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: 'r' },
];

interface Scene {
  readonly dir: string;
  readonly stateDir: string;
  readonly out: string;
  readonly persist: PersistFile[];
  readonly before: Record<string, string>;
  readonly outBefore: Record<string, string>;
  done(): void;
}

/** A fresh fake tree, journal and --persist directory (one file to replace, one to create). */
function scene(): Scene {
  const dir = makeTree();
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  const out = mkdtempSync(join(tmpdir(), 'numakit-persist-'));
  writeFileSync(join(out, 'old.conf'), 'old\n');
  const persist = [
    { path: join(out, 'old.conf'), text: 'new\n' },
    { path: join(out, 'sysctl.d', '90-numakit.conf'), text: 'vm.swappiness = 10\n' },
  ];
  return {
    dir,
    stateDir,
    out,
    persist,
    before: treeContents(dir),
    outBefore: treeContents(out),
    done: () => [dir, stateDir, out].forEach((d) => rmSync(d, { recursive: true, force: true })),
  };
}

function child(
  mode: 'apply' | 'rollback',
  s: Scene,
  killAt: number,
): Promise<{ signal: string | null; code: number | null; out: string; err: string }> {
  const args = [
    CHILD.file,
    mode,
    s.dir,
    s.stateDir,
    String(killAt),
    JSON.stringify({ changes: CHANGES, persist: s.persist }),
  ];
  const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => p.on('close', (code, signal) => resolve({ signal, code, out, err })));
}

/** Runs `fn` for 1..n, two at a time (the CI machine has 2 cores). */
async function eachPoint(n: number, fn: (k: number) => Promise<void>): Promise<void> {
  let next = 1;
  const worker = async () => {
    for (let k = next++; k <= n; k = next++) await fn(k);
  };
  await Promise.all([worker(), worker()]);
}

/** Rollback as the operator would run it after the kill; a journal with nothing pending is fine. */
function rollbackAll(s: Scene): void {
  try {
    withFileFaults(
      () => undefined,
      () => rollback(fakeSystem(s.dir), { stateDir: s.stateDir, all: true }),
      { noSync: true },
    );
  } catch (e) {
    assert.match((e as Error).message, /^nothing to roll back/);
  }
}

function assertAsBefore(s: Scene, what: string): void {
  assert.deepEqual(treeContents(s.dir), s.before, `${what}: knobs`);
  assert.deepEqual(treeContents(s.out), s.outBefore, `${what}: --persist files`);
  assert.deepEqual(readJournal(s.stateDir).corrupt, [], `${what}: journal`);
}

async function countPoints(mode: 'apply' | 'rollback', prepare: (s: Scene) => void = () => {}): Promise<string[]> {
  const s = scene();
  prepare(s);
  const r = await child(mode, s, 0);
  s.done();
  assert.equal(r.code, 0, r.err);
  return r.out.trim().split('\n');
}

test('apply killed after each journal write, knob write and file write: rollback puts back every byte', async () => {
  const points = await countPoints('apply');
  // 1 counter + 1 new set + 3 per change (journal, knob or unit, journal) + per file (journal, file, journal) + applied.
  assert.equal(points.filter((p) => p.startsWith('write ')).length, 4, points.join('\n'));
  assert.ok(points.length >= 2 + 3 * CHANGES.length + 3 * 2, points.join('\n'));
  await eachPoint(points.length, async (k) => {
    const s = scene();
    const r = await child('apply', s, k);
    assert.equal(r.signal, 'SIGKILL', `point ${k} (${points[k - 1]}): ${r.err}`);
    rollbackAll(s);
    assertAsBefore(s, `killed after point ${k}: ${points[k - 1]}`);
    s.done();
  });
  process.stdout.write(`# apply: killed after each of ${points.length} write points\n`);
});

test('rollback killed after each of its writes, then run again: every byte as before', async () => {
  const applied = (s: Scene) =>
    void withFileFaults(
      () => undefined,
      () =>
        applyPlan(fakeSystem(s.dir), planChanges(fakeSystem(s.dir), CHANGES), {
          stateDir: s.stateDir,
          source: 'test',
          persist: s.persist,
        }),
      { noSync: true },
    );
  const points = await countPoints('rollback', applied);
  await eachPoint(points.length, async (k) => {
    const s = scene();
    applied(s);
    const r = await child('rollback', s, k);
    assert.equal(r.signal, 'SIGKILL', `point ${k} (${points[k - 1]}): ${r.err}`);
    rollbackAll(s);
    assertAsBefore(s, `rollback killed after point ${k}: ${points[k - 1]}`);
    s.done();
  });
  process.stdout.write(`# rollback: killed after each of ${points.length} write points\n`);
});
