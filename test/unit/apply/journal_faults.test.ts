// A journal that cannot lie: every failure of a journal write (a short write on a full disk,
// ENOSPC, EPERM, EIO at each step) stops the apply, which puts back what it changed and says
// so; the knob tree ends byte for byte as before and the journal file on disk is always a
// whole change set. Faults are injected through the file-call table (test/helpers/file_faults.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyPlan } from '../../../src/actuate/apply.js';
import { atomicWrite } from '../../../src/actuate/atomic_write.js';
import { listChangeSets, readJournal } from '../../../src/actuate/journal.js';
import { rollback } from '../../../src/actuate/rollback.js';
import { planChanges } from '../../../src/actuate/targets.js';
import { needsUndo, type Change } from '../../../src/model/change.js';
import { opensForWrite, withFileFaults, type Call, type Rule } from '../../helpers/file_faults.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

const KEYS = 20;
const CHANGES: Change[] = Array.from({ length: KEYS }, (_, i) => ({
  kind: 'sysctl',
  target: `vm.numakit_k${i + 1}`,
  value: '1',
  reason: 'test',
}));

function setup() {
  const dir = makeTree();
  for (let i = 1; i <= KEYS; i++) writeFileSync(join(dir, `proc/sys/vm/numakit_k${i}`), '0\n');
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  const sys = fakeSystem(dir);
  return {
    dir,
    stateDir,
    sys,
    before: treeContents(dir),
    plan: planChanges(sys, CHANGES),
    done: () => {
      rmSync(dir, { recursive: true });
      rmSync(stateDir, { recursive: true });
    },
  };
}

const inJournal = (stateDir: string) => (c: Call) => c.path.startsWith(join(stateDir, 'journal'));
const isKnobOpen = (stateDir: string) => (c: Call) => opensForWrite(c) && !c.path.startsWith(stateDir);

/** The apply's error message (it must throw). */
function failedApply(s: ReturnType<typeof setup>, rule: Rule): string {
  try {
    withFileFaults(rule, () => applyPlan(s.sys, s.plan, { stateDir: s.stateDir, source: 'test' }));
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('the apply succeeded');
}

/** Every journal file on disk parses as a whole change set, and none has anything left to undo. */
function assertJournalWhole(stateDir: string): void {
  const j = readJournal(stateDir);
  assert.deepEqual(j.corrupt, []);
  assert.deepEqual(
    readdirSync(join(stateDir, 'journal')).filter((n) => n.includes('.tmp-')),
    [],
    'no temporary file left',
  );
  for (const cs of j.sets)
    assert.equal(needsUndo(cs) && cs.status !== 'applying', false, `set ${cs.id} is ${cs.status}`);
}

test('atomicWrite: short writes are continued to the last byte', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-aw-'));
  const text = 'x'.repeat(10_000) + 'é\n';
  const calls: Call[] = [];
  withFileFaults(
    (c) => (c.op === 'write' ? 7 : undefined),
    () => atomicWrite(join(dir, 'f'), text),
    { log: calls },
  );
  assert.equal(readFileSync(join(dir, 'f'), 'utf8'), text);
  assert.ok(calls.filter((c) => c.op === 'write').length > 1000);
  // Durable: the file's data is synced before the rename, and the directory after it.
  const steps = calls
    .filter((c) => c.op !== 'write')
    .map((c) => `${c.op} ${c.path.replace(dir, 'D').replace(/tmp-\d+/, 'tmp')}`);
  assert.deepEqual(steps, [
    'mkdir D',
    'open D/.f.tmp',
    'fsync D/.f.tmp',
    'close D/.f.tmp',
    'rename D/f',
    'open D',
    'fsync D',
    'close D',
  ]);
  rmSync(dir, { recursive: true });
});

test('atomicWrite: each step failing (ENOSPC, EPERM, EIO, a full disk) leaves the old file and no temporary file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-aw-'));
  const path = join(dir, 'f');
  writeFileSync(path, 'old');
  let wrote = false;
  const cases: Array<[string, Rule, RegExp]> = [
    [
      'open EPERM',
      (c) => (c.op === 'open' && c.path.includes('.tmp-') ? 'EPERM' : undefined),
      /\.f\.tmp-\d+: open failed: not permitted \(EPERM\)/,
    ],
    [
      'write ENOSPC',
      (c) => (c.op === 'write' ? 'ENOSPC' : undefined),
      /write failed: no space left on device \(ENOSPC\)/,
    ],
    [
      'disk full at 4096',
      (c) => {
        if (c.op !== 'write') return undefined;
        if (wrote) return 0;
        wrote = true;
        return 4096;
      },
      /write failed: wrote 4096 of 10000 bytes, then the file system took no more/,
    ],
    [
      'fsync EIO',
      (c) => (c.op === 'fsync' && c.path.includes('.tmp-') ? 'EIO' : undefined),
      /fsync failed: input\/output error \(EIO\)/,
    ],
    [
      'close EIO',
      (c) => (c.op === 'close' && c.path.includes('.tmp-') ? 'EIO' : undefined),
      /close failed: input\/output error \(EIO\)/,
    ],
    ['rename EIO', (c) => (c.op === 'rename' ? 'EIO' : undefined), /\/f: rename failed: input\/output error \(EIO\)/],
  ];
  for (const [name, rule, message] of cases) {
    assert.throws(() => withFileFaults(rule, () => atomicWrite(path, 'n'.repeat(10_000))), message, name);
    assert.equal(readFileSync(path, 'utf8'), 'old', name);
    assert.deepEqual(readdirSync(dir), ['f'], name);
  }
  // The directory fsync fails after the rename: the new content is in place, and the caller is told it may not last.
  assert.throws(
    () =>
      withFileFaults(
        (c) => (c.op === 'fsync' && c.path === dir ? 'EIO' : undefined),
        () => atomicWrite(path, 'new'),
      ),
    /fsync of the directory failed: input\/output error/,
  );
  rmSync(dir, { recursive: true });
});

test('a nearly full disk (journal files cut at 4096 bytes): apply of 20 keys stops, rolls back, and says so; no value stays changed', () => {
  const s = setup();
  const bytes = new Map<string, number>();
  const msg = failedApply(s, (c) => {
    if (c.op === 'open') bytes.set(c.path, 0); // each new file starts empty
    if (c.op !== 'write' || !inJournal(s.stateDir)(c)) return undefined;
    const used = bytes.get(c.path) ?? 0;
    const take = Math.max(0, Math.min(c.length!, 4096 - used));
    bytes.set(c.path, used + take);
    return take;
  });
  assert.match(
    msg,
    /^apply failed: cannot write the journal: .*\.tmp-\d+: write failed: wrote 4096 of \d+ bytes, then the file system took no more; it had changed (\d+) value\(s\) \(\/proc\/sys\/vm\/numakit_k\d+.*\): all rolled back; the journal file could not record the rollback: .*\(change set 1\)$/,
  );
  assert.ok(Number(/had changed (\d+)/.exec(msg)![1]) > 0 && Number(/had changed (\d+)/.exec(msg)![1]) < KEYS);
  assert.deepEqual(treeContents(s.dir), s.before);
  // What is on disk is the last whole change set (never a cut one); rollback then finds every value back.
  const [cs] = listChangeSets(s.stateDir);
  assert.equal(cs!.status, 'applying');
  const [undo] = rollback(s.sys, { stateDir: s.stateDir });
  assert.deepEqual([undo!.restored, undo!.failures], [[], []]);
  assertJournalWhole(s.stateDir);
  s.done();
});

test('the journal directory turns unwritable (EPERM) after 5 knob writes: the 5 values are put back, and the message says what had changed', () => {
  const s = setup();
  let knobs = 0;
  const msg = failedApply(s, (c) => {
    if (isKnobOpen(s.stateDir)(c)) knobs++;
    return knobs >= 5 && c.op === 'open' && inJournal(s.stateDir)(c) ? 'EPERM' : undefined;
  });
  assert.match(
    msg,
    /^apply failed: cannot write the journal: .*: open failed: not permitted \(EPERM\); it had changed 5 value\(s\) \(\/proc\/sys\/vm\/numakit_k5, \/proc\/sys\/vm\/numakit_k4, \/proc\/sys\/vm\/numakit_k3, \/proc\/sys\/vm\/numakit_k2, \/proc\/sys\/vm\/numakit_k1\): all rolled back; the journal file could not record the rollback/,
  );
  assert.deepEqual(treeContents(s.dir), s.before);
  s.done();
});

test('every journal write of an apply, failing with ENOSPC, EPERM or EIO: stopped, rolled back, journal whole', () => {
  const s = setup();
  const plan = s.plan.slice(0, 3); // 1 + 2 x 3 + 1 = 8 journal writes
  for (const code of ['ENOSPC', 'EPERM', 'EIO']) {
    for (let k = 1; k <= 8; k++) {
      let n = 0;
      let msg = '';
      try {
        withFileFaults(
          (c) =>
            c.op === 'rename' && inJournal(s.stateDir)(c) && !c.path.endsWith('.seq') && ++n === k ? code : undefined,
          () => applyPlan(s.sys, plan, { stateDir: s.stateDir, source: 'test' }),
        );
        assert.fail('applied');
      } catch (e) {
        msg = (e as Error).message;
      }
      // Write k fails: the knobs written before it (write 2i+1 records knob i as written).
      const changed = Math.floor((k - 1) / 2);
      const then =
        changed === 0 ? 'nothing had been changed' : `it had changed ${changed} value\\(s\\) \\(.*\\): all rolled back`;
      if (k === 1)
        assert.match(
          msg,
          new RegExp(
            `^apply refused: cannot write the journal: .*rename failed: .*\\(${code}\\); nothing was changed$`,
          ),
          `${code} #${k}`,
        );
      else
        assert.match(
          msg,
          new RegExp(`^apply failed: cannot write the journal: .*\\(${code}\\); ${then}`),
          `${code} #${k}: ${msg}`,
        );
      assert.deepEqual(treeContents(s.dir), s.before, `${code} #${k}`);
      assertJournalWhole(s.stateDir);
    }
  }
  s.done();
});
