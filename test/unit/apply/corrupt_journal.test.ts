// One corrupt journal file never blocks the other change sets: `journal` lists them and names
// it, `rollback` (an ID, the last, --all) sets it aside and goes on.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyPlan } from '../../../src/actuate/apply.js';
import { rollback } from '../../../src/actuate/rollback.js';
import { planChanges } from '../../../src/actuate/targets.js';
import journalCmd from '../../../src/cli/commands/journal.js';
import rollbackCmd from '../../../src/cli/commands/rollback.js';
import type { Change } from '../../../src/model/change.js';
import { REAL_ROOT } from '../../../src/sysfs/root.js';
import { runCommand } from '../../helpers/cli.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

const change = (target: string, value: string): Change => ({ kind: 'sysctl', target, value, reason: 'r' });

/** Three applied sets (1: swappiness, 2: corrupt, 3: numa_balancing). */
function setup() {
  const dir = makeTree();
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  const before = treeContents(dir);
  const sys = fakeSystem(dir);
  for (const c of [
    change('vm.swappiness', '10'),
    change('vm.zone_reclaim_mode', '1'),
    change('kernel.numa_balancing', '0'),
  ]) {
    applyPlan(sys, planChanges(sys, [c]), { stateDir, source: String(c.target) });
  }
  writeFileSync(
    join(stateDir, 'journal', '2.json'),
    readFileSync(join(stateDir, 'journal', '2.json'), 'utf8').slice(0, 200),
  );
  return {
    dir,
    stateDir,
    sys,
    before,
    done: () => {
      rmSync(dir, { recursive: true });
      rmSync(stateDir, { recursive: true });
    },
  };
}

test('journal lists the readable sets and names the corrupt file on stderr', async () => {
  const { stateDir, done } = setup();
  const r = await runCommand(journalCmd, REAL_ROOT, ['--state-dir', stateDir]);
  assert.equal(r.code, 0);
  assert.match(r.out, /^1 .*vm\.swappiness .*applied/m);
  assert.match(r.out, /^3 .*kernel\.numa_balancing .*applied/m);
  assert.doesNotMatch(r.out, /^2 /m);
  assert.match(r.err, /^numakit: warning: .*journal\/2\.json: corrupt journal file \(not valid JSON: .*\); skipped/m);
  const json = await runCommand(journalCmd, REAL_ROOT, ['--state-dir', stateDir, '--json']);
  const parsed = JSON.parse(json.out) as { schemaVersion: number; changeSets: { id: string }[] };
  assert.equal(parsed.schemaVersion, 1);
  assert.deepEqual(
    parsed.changeSets.map((c) => c.id),
    ['1', '3'],
  );
  done();
});

test('rollback OTHER_ID, the last and --all work past it; it is set aside in journal/corrupt/ and still named', async () => {
  const { dir, stateDir, sys, done } = setup();
  const warned: string[] = [];
  const [one] = rollback(sys, { stateDir, id: '1', warn: (l) => warned.push(l) });
  assert.equal(one!.changeSet.id, '1');
  assert.equal(readFileSync(join(dir, 'proc/sys/vm/swappiness'), 'utf8'), '60\n');
  assert.match(
    warned.join('\n'),
    /2\.json: corrupt journal file .*; set aside as .*journal\/corrupt\/2\.json: numakit cannot undo what it may record/,
  );
  assert.ok(existsSync(join(stateDir, 'journal', 'corrupt', '2.json')));
  assert.deepEqual(
    rollback(sys, { stateDir, all: true }).map((u) => u.changeSet.id),
    ['3'],
  );
  assert.equal(readFileSync(join(dir, 'proc/sys/kernel/numa_balancing'), 'utf8'), '1\n');
  assert.equal(
    readFileSync(join(dir, 'proc/sys/vm/zone_reclaim_mode'), 'utf8'),
    '1\n',
    'what the corrupt set changed stays: it is named, not guessed',
  );
  const r = await runCommand(journalCmd, REAL_ROOT, ['--state-dir', stateDir]);
  assert.match(r.err, /1 corrupt journal file\(s\) set aside in .*journal\/corrupt\/ \(2\.json\)/);
  done();
});

test('rollback --dry-run past a corrupt file names it and shows the set it would undo', async () => {
  const { stateDir, done } = setup();
  const r = await runCommand(rollbackCmd, REAL_ROOT, ['--dry-run', '--state-dir', stateDir]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /change set 3/);
  assert.match(r.err, /2\.json: corrupt journal file/);
  done();
});
