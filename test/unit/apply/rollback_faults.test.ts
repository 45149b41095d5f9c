// Rollback under faults and stacked sets: when a value cannot be put back the message lists it
// with its value now and its old value; a journal that cannot be written does not stop values
// from coming back; two applies in the same second unwind newest first.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyPlan } from '../../../src/actuate/apply.js';
import { listChangeSets, saveChangeSet } from '../../../src/actuate/journal.js';
import { rollback } from '../../../src/actuate/rollback.js';
import { planChanges } from '../../../src/actuate/targets.js';
import type { Change, ChangeSet } from '../../../src/model/change.js';
import { withFileFaults } from '../../helpers/file_faults.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

const swappiness = (value: string): Change => ({ kind: 'sysctl', target: 'vm.swappiness', value, reason: 'r' });
const CHANGES: Change[] = [
  { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
  swappiness('10'),
  { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'never', reason: 'r' },
];

function setup() {
  const dir = makeTree();
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  return {
    dir,
    stateDir,
    before: treeContents(dir),
    done: () => {
      rmSync(dir, { recursive: true });
      rmSync(stateDir, { recursive: true });
    },
  };
}

test('two applies in the same second: rollback --all ends at the original value (60 -> 10 -> 20 -> 60)', () => {
  const { dir, stateDir, before, done } = setup();
  const sys = fakeSystem(dir);
  const now = new Date(Date.UTC(2025, 0, 1, 12, 0, 0));
  applyPlan(sys, planChanges(sys, [swappiness('10')]), { stateDir, source: 'first', now });
  applyPlan(sys, planChanges(sys, [swappiness('20')]), { stateDir, source: 'second', now });
  assert.deepEqual(
    listChangeSets(stateDir).map((c) => c.source),
    ['first', 'second'],
  );
  const undone = rollback(sys, { stateDir, all: true });
  assert.deepEqual(
    undone.map((u) => u.changeSet.source),
    ['second', 'first'],
  );
  assert.equal(readFileSync(join(dir, 'proc/sys/vm/swappiness'), 'utf8'), '60\n');
  assert.deepEqual(treeContents(dir), before);
  done();
});

test('journals of older numakit ("X" and "X-2" in one second) unwind newest first too', () => {
  const { dir, stateDir, before, done } = setup();
  const sys = fakeSystem(dir);
  const entry = (old: string, value: string) => ({
    change: swappiness(value),
    path: 'proc/sys/vm/swappiness',
    old: `${old}\n`,
    restore: old,
    state: 'written' as const,
  });
  const old = (id: string, e: ReturnType<typeof entry>): ChangeSet => ({
    version: 1,
    id,
    time: '2025-01-01T12:00:00.000Z',
    source: id,
    status: 'applied',
    pid: 1,
    planned: 1,
    entries: [e],
    files: [],
  });
  saveChangeSet(stateDir, old('20250101-120000', entry('60', '10')));
  saveChangeSet(stateDir, old('20250101-120000-2', entry('10', '20')));
  writeFileSync(join(dir, 'proc/sys/vm/swappiness'), '20\n');
  assert.deepEqual(
    rollback(sys, { stateDir, all: true }).map((u) => u.changeSet.id),
    ['20250101-120000-2', '20250101-120000'],
  );
  assert.deepEqual(treeContents(dir), before);
  done();
});

test('a rollback that cannot put a value back lists exactly what is still changed, now and before; a second try finishes', () => {
  const { dir, stateDir, before, done } = setup();
  applyPlan(fakeSystem(dir), planChanges(fakeSystem(dir), CHANGES), { stateDir, source: 'test' });
  const [r] = rollback(fakeSystem(dir, { failOn: ['proc/sys/vm/swappiness'] }), { stateDir });
  assert.deepEqual(r!.failures, [
    "/proc/sys/vm/swappiness is still '10' (was '60'): cannot write '60': read-only file system (EROFS)",
  ]);
  assert.deepEqual(r!.restored, ['/sys/kernel/mm/transparent_hugepage/enabled', '/proc/sys/kernel/numa_balancing']);
  const cs = listChangeSets(stateDir)[0]!;
  assert.equal(cs.status, 'rollback-incomplete');
  assert.match(cs.error!, /still changed: \/proc\/sys\/vm\/swappiness is still '10' \(was '60'\)/);
  const [again] = rollback(fakeSystem(dir), { stateDir });
  assert.deepEqual([again!.restored, again!.failures], [['/proc/sys/vm/swappiness'], []]);
  assert.deepEqual(treeContents(dir), before);
  done();
});

test('a value that does not read back after the rollback is listed with what it reads', () => {
  const { dir, stateDir, done } = setup();
  applyPlan(fakeSystem(dir), planChanges(fakeSystem(dir), [swappiness('10')]), { stateDir, source: 'test' });
  const [r] = rollback(fakeSystem(dir, { ignoreOn: ['proc/sys/vm/swappiness'] }), { stateDir });
  assert.deepEqual(r!.failures, [
    "/proc/sys/vm/swappiness is still '10' (was '60'): wrote '60' back but it reads '10'",
  ]);
  done();
});

test('rollback with an unwritable journal still puts every value back, and says the journal did not record it', () => {
  const { dir, stateDir, before, done } = setup();
  const sys = fakeSystem(dir);
  applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' });
  const [r] = withFileFaults(
    (c) => (c.op === 'open' && c.path.startsWith(join(stateDir, 'journal')) && c.flags !== 'r' ? 'EPERM' : undefined),
    () => rollback(sys, { stateDir }),
  );
  assert.equal(r!.restored.length, 3);
  assert.match(r!.journalError!, /cannot write the journal: .*open failed: not permitted \(EPERM\)/);
  assert.deepEqual(treeContents(dir), before);
  assert.equal(listChangeSets(stateDir)[0]!.status, 'applied', 'the journal still says applied');
  const [again] = rollback(sys, { stateDir });
  assert.deepEqual([again!.restored, again!.failures, again!.changeSet.status], [[], [], 'rolled-back']);
  done();
});
