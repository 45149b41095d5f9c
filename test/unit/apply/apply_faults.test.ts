// apply --yes with a knob write failing with each errno (write(2) on /proc/sys, /sys and
// /proc/irq files): the error names the file, the value and the errno; what this apply had
// changed is put back; the journal records the set as failed with nothing left to undo.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyPlan } from '../../../src/actuate/apply.js';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { planChanges } from '../../../src/actuate/targets.js';
import { needsUndo, type Change } from '../../../src/model/change.js';
import { withFileFaults, type Rule } from '../../helpers/file_faults.js';
import { FAULTS } from '../../helpers/native_faults.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

const CHANGES: Change[] = [
  { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
  { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'never', reason: 'r' },
  { kind: 'irq-affinity', target: 40, value: '0-1', reason: 'r' },
  { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: 'r' },
];
const LABELS = [
  '/proc/sys/kernel/numa_balancing',
  '/sys/kernel/mm/transparent_hugepage/enabled',
  '/proc/irq/40/smp_affinity_list',
  '/proc/sys/vm/swappiness',
];

const TEXT: Record<string, string> = {
  ESRCH: 'no such process (ESRCH)',
  EPERM: 'not permitted (EPERM)',
  EINVAL: 'invalid value (EINVAL)',
  ENOMEM: 'out of memory (ENOMEM)',
  EBUSY: 'busy (EBUSY)',
  EFAULT: 'bad address (EFAULT)',
  EIO: 'refused by the kernel (EIO; a kernel-managed IRQ?)',
  ENOSPC: 'no space left (ENOSPC; no free interrupt vectors?)',
  EACCES: 'permission denied (EACCES)',
  EROFS: 'read-only file system (EROFS)',
};

/** The k-th knob write (1-based) fails with errno at `step` (open or write). */
function knobFault(dir: string, k: number, errno: string, step: 'open' | 'write'): Rule {
  let n = 0;
  return (c) => {
    if (!c.path.startsWith(dir) || c.op !== step || (step === 'open' && c.flags === 'r')) return undefined;
    return ++n === k ? errno : undefined;
  };
}

function applyWith(rule: (dir: string) => Rule) {
  const dir = makeTree();
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  const before = treeContents(dir);
  const sys = fakeSystem(dir);
  let message = '';
  try {
    withFileFaults(rule(dir), () => applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' }), {
      noSync: true,
    });
  } catch (e) {
    message = (e as Error).message;
  }
  const after = treeContents(dir);
  const sets = listChangeSets(stateDir);
  rmSync(dir, { recursive: true });
  rmSync(stateDir, { recursive: true });
  // Knob paths are under the fake root here ("/" on a real system).
  return { message: message.split(dir).join(''), same: JSON.stringify(after) === JSON.stringify(before), sets };
}

// On a fake tree the open (O_TRUNC) of the failing knob empties the regular file before write()
// fails, so it too has changed and is put back (a kernel knob keeps its value): 3 values.
test(`a knob write failing with ${[...FAULTS, 'EIO', 'ENOSPC'].join(', ')} (the 3rd of 4): named, what changed put back, journal consistent`, () => {
  for (const errno of [...FAULTS, 'EIO', 'ENOSPC']) {
    const r = applyWith((dir) => knobFault(dir, 3, errno, 'write'));
    assert.equal(
      r.message,
      `apply failed: /proc/irq/40/smp_affinity_list: cannot write '0-1': ${TEXT[errno]}; it had changed 3 value(s) (${LABELS[2]}, ${LABELS[1]}, ${LABELS[0]}): all rolled back (change set 1)`,
    );
    assert.ok(r.same, `${errno}: the tree is as before`);
    assert.deepEqual(
      r.sets.map((cs) => [cs.status, needsUndo(cs), cs.entries.map((e) => e.state).join()]),
      [['failed', false, 'restored,restored,restored']],
    );
  }
});

test('a knob that cannot be opened for writing (EACCES at each position, EROFS, EPERM): the ones before are put back', () => {
  for (const errno of ['EACCES', 'EROFS', 'EPERM']) {
    for (let k = errno === 'EACCES' ? 1 : 3; k <= (errno === 'EACCES' ? CHANGES.length : 3); k++) {
      const r = applyWith((dir) => knobFault(dir, k, errno, 'open'));
      const before = LABELS.slice(0, k - 1).reverse();
      const then =
        before.length === 0
          ? 'nothing had been changed'
          : `it had changed ${before.length} value(s) (${before.join(', ')}): all rolled back`;
      assert.match(
        r.message,
        new RegExp(
          `^apply failed: ${LABELS[k - 1]!.replace(/\//g, '\\/')}: cannot write '.*': ${TEXT[errno]!.replace(/[()?]/g, '\\$&')}; ${then.replace(/[()]/g, '\\$&')} \\(change set 1\\)$`,
        ),
        `${errno} #${k}: ${r.message}`,
      );
      assert.ok(r.same, `${errno} #${k}`);
      assert.equal(r.sets[0]!.status, 'failed');
    }
  }
});

test('a knob that takes part of the value (a short write) is a failure, and what it holds then is put back', () => {
  let once = true;
  const r = applyWith((dir) => (c) => {
    if (c.op !== 'write' || !c.path.startsWith(dir) || !c.path.endsWith('swappiness') || !once) return undefined;
    once = false;
    return 1;
  });
  assert.match(
    r.message,
    /^apply failed: \/proc\/sys\/vm\/swappiness: cannot write '10': the kernel took 1 of 3 bytes; it had changed 4 value\(s\) \(\/proc\/sys\/vm\/swappiness, .*\): all rolled back/,
  );
  assert.ok(r.same);
});

// (The restore's own short write leaves '6' of '60'. On a fake root the file's label is repeated in the reason.)
test('a knob that cannot be put back either is listed as still changed, with what it holds and held', () => {
  const r = applyWith(
    (dir) => (c) => (c.op === 'write' && c.path.startsWith(dir) && c.path.endsWith('swappiness') ? 1 : undefined),
  );
  assert.match(
    r.message,
    /; it had changed 4 value\(s\): rolled back 3 \(.*\), STILL CHANGED \(1\): \/proc\/sys\/vm\/swappiness is still '6' \(was '60'\): (\/proc\/sys\/vm\/swappiness: )?cannot write '60': the kernel took 1 of 3 bytes \(change set 1\)$/,
  );
  assert.equal(r.sets[0]!.status, 'rollback-incomplete');
});
