import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyPlan } from '../../../src/actuate/apply.js';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { rollback } from '../../../src/actuate/rollback.js';
import { planChanges } from '../../../src/actuate/targets.js';
import type { Change } from '../../../src/model/change.js';
import { NumakitError } from '../../../src/model/errors.js';
import { fakeSystem, makeTree, treeContents } from './fake_system.js';

const CHANGES: Change[] = [
  { kind: 'service', target: 'irqbalance', value: 'stopped', reason: 'r' },
  { kind: 'sysctl', target: 'kernel.numa_balancing', value: '0', reason: 'r' },
  { kind: 'sysctl', target: 'kernel.numa_balancing_scan_delay_ms', value: '2000', reason: 'r' },
  { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'never', reason: 'r' },
  { kind: 'irq-affinity', target: 40, value: '0-1', device: 'eth0', reason: 'r' },
  { kind: 'sysfs', target: 'sys/class/net/eth0/queues/rx-0/rps_cpus', value: '3', reason: 'r' },
  { kind: 'sysctl', target: 'vm.swappiness', value: '60', reason: 'r' },
  { kind: 'sysctl', target: 'vm.no_such_knob', value: '1', reason: 'r' },
];

function setup(opts = {}) {
  const dir = makeTree();
  const stateDir = mkdtempSync(join(tmpdir(), 'numakit-state-'));
  return { dir, stateDir, sys: fakeSystem(dir, opts), before: treeContents(dir) };
}

test('plan: compares with the running values, resolves the debugfs scan knob, marks absent targets', () => {
  const { sys } = setup();
  const plan = planChanges(sys, CHANGES);
  assert.deepEqual(
    plan.map((p) => [p.path, p.current, p.action]),
    [
      [null, 'running', 'change'],
      ['proc/sys/kernel/numa_balancing', '1', 'change'],
      ['sys/kernel/debug/sched/numa_balancing/scan_delay_ms', '1000', 'change'],
      ['sys/kernel/mm/transparent_hugepage/enabled', 'always', 'change'],
      ['proc/irq/40/smp_affinity_list', '0-3', 'change'],
      ['sys/class/net/eth0/queues/rx-0/rps_cpus', '00000000', 'change'],
      ['proc/sys/vm/swappiness', '60', 'same'],
      ['proc/sys/vm/no_such_knob', null, 'absent'],
    ],
  );
});

test('apply writes every change, journals it as applied, and rollback restores every file byte for byte', () => {
  const { dir, stateDir, sys, before } = setup();
  const cs = applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' });
  assert.equal(cs.status, 'applied');
  assert.equal(cs.entries.length, 6);
  assert.ok(cs.entries.every((e) => e.state === 'written'));
  const after = treeContents(dir);
  assert.equal(after['sys/kernel/mm/transparent_hugepage/enabled'], 'always madvise [never]\n');
  assert.equal(after['proc/irq/40/smp_affinity_list'], '0-1\n');
  assert.equal(after['fake-services/irqbalance'], 'stopped');
  assert.equal(cs.entries.find((e) => e.path?.endsWith('enabled'))!.old, '[always] madvise never\n');

  const [undo] = rollback(sys, { stateDir });
  assert.equal(undo!.restored.length, 6);
  assert.deepEqual(treeContents(dir), before);
  assert.equal(listChangeSets(stateDir)[0]!.status, 'rolled-back');
});

test('a failing write rolls back what this apply changed, says so, and records the set as failed', () => {
  const { dir, stateDir, sys, before } = setup({ failOn: ['sys/kernel/mm/transparent_hugepage/enabled'] });
  assert.throws(
    () => applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' }),
    (e: Error) =>
      e instanceof NumakitError &&
      /apply failed: .*enabled.*read-only.*; it had changed 3 value\(s\) \(.*scan_delay_ms, .*numa_balancing, service irqbalance\): all rolled back \(change set 1\)$/.test(
        e.message,
      ),
  );
  assert.deepEqual(treeContents(dir), before);
  const [cs] = listChangeSets(stateDir);
  assert.equal(cs!.status, 'failed');
  assert.match(cs!.error!, /read-only/);
  assert.throws(() => rollback(sys, { stateDir }), /nothing to roll back/);
});

test('a write that does not read back is a failure and is rolled back', () => {
  const { dir, stateDir, sys, before } = setup({ ignoreOn: ['proc/irq/40/smp_affinity_list'] });
  assert.throws(
    () => applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' }),
    /smp_affinity_list: wrote '0-1' but it reads back '0-3'; it had changed 4 value\(s\).*: all rolled back/,
  );
  assert.deepEqual(treeContents(dir), before);
});

test('a failing service stop is rolled back too (nothing before it), and an EINVAL value names the file', () => {
  const { dir, stateDir, sys, before } = setup({ failOn: ['service:irqbalance'] });
  assert.throws(
    () => applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' }),
    /systemctl stop irqbalance failed.*; nothing had been changed \(change set 1\)/,
  );
  assert.deepEqual(treeContents(dir), before);
  const bad: Change[] = [
    { kind: 'sysfs', target: 'sys/kernel/mm/transparent_hugepage/enabled', value: 'sometimes', reason: 'r' },
  ];
  assert.throws(
    () => applyPlan(sys, planChanges(sys, bad), { stateDir, source: 'test' }),
    /transparent_hugepage\/enabled: cannot write 'sometimes': invalid value \(EINVAL\)/,
  );
});

test('as non-root: refuses before writing anything and lists the changes that need root', () => {
  const { dir, stateDir, sys, before } = setup({ isRoot: false });
  assert.throws(
    () => applyPlan(sys, planChanges(sys, CHANGES), { stateDir, source: 'test' }),
    /needs root: 6 change\(s\).*service irqbalance, \/proc\/sys\/kernel\/numa_balancing,.*nothing was changed/,
  );
  assert.deepEqual(treeContents(dir), before);
  assert.deepEqual(listChangeSets(stateDir), []);
});

test('rollback warns about values changed since the apply and restores them anyway', () => {
  const { dir, stateDir, sys, before } = setup();
  applyPlan(sys, planChanges(sys, CHANGES.slice(1, 2)), { stateDir, source: 'test' });
  writeFileSync(join(dir, 'proc/sys/kernel/numa_balancing'), '7\n');
  const [undo] = rollback(sys, { stateDir });
  assert.deepEqual(undo!.drifted, ['/proc/sys/kernel/numa_balancing']);
  assert.deepEqual(treeContents(dir), before);
});

test('rollback --all undoes stacked sets newest first, back to the original values; ID and --last select', () => {
  const { dir, stateDir, sys, before } = setup();
  const t = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));
  const a = applyPlan(sys, planChanges(sys, [CHANGES[1]!]), { stateDir, source: 'a', now: t(1) });
  const b = applyPlan(sys, planChanges(sys, [{ ...CHANGES[1]!, value: '2' } as Change]), {
    stateDir,
    source: 'b',
    now: t(2),
  });
  assert.equal(a.id, '1');
  assert.equal(b.entries[0]!.old, '0\n');
  assert.throws(() => rollback(sys, { stateDir, id: 'nope' }), /no change set 'nope'/);
  const undone = rollback(sys, { stateDir, all: true });
  assert.deepEqual(
    undone.map((u) => u.changeSet.source),
    ['b', 'a'],
  );
  assert.deepEqual(treeContents(dir), before);
  assert.throws(() => rollback(sys, { stateDir, id: a.id }), /nothing to roll back \(status rolled-back\)/);
});

test('persisted files are journaled: rollback removes new ones and restores replaced ones', () => {
  const { stateDir, sys } = setup();
  const out = mkdtempSync(join(tmpdir(), 'numakit-persist-'));
  writeFileSync(join(out, 'old.conf'), 'old\n');
  const persist = [
    { path: join(out, 'sysctl.d/90-numakit.conf'), text: 'vm.swappiness = 10\n' },
    { path: join(out, 'old.conf'), text: 'new\n' },
  ];
  const cs = applyPlan(sys, planChanges(sys, [CHANGES[1]!]), { stateDir, source: 'p', persist });
  assert.deepEqual(
    cs.files.map((f) => [f.old, f.state]),
    [
      [null, 'written'],
      ['old\n', 'written'],
    ],
  );
  assert.equal(readFileSync(join(out, 'sysctl.d/90-numakit.conf'), 'utf8'), 'vm.swappiness = 10\n');
  rollback(sys, { stateDir });
  assert.equal(existsSync(join(out, 'sysctl.d/90-numakit.conf')), false);
  assert.equal(readFileSync(join(out, 'old.conf'), 'utf8'), 'old\n');
});

/** A tuned that records each switch and, like tuned, puts back the swappiness it found when a profile started. */
function fakeTuned(sys: ReturnType<typeof setup>['sys'], active: string[], opts: { fail?: boolean } = {}) {
  const calls: string[][] = [];
  let found: string | null = null;
  return {
    calls,
    tuned: {
      active: () => [...active],
      activate(profiles: readonly string[]) {
        calls.push([...profiles]);
        if (opts.fail) throw new NumakitError(`tuned-adm profile ${profiles.join(' ')} failed: no such profile`);
        if (found !== null) sys.write('proc/sys/vm/swappiness', found);
        found = profiles.includes('numakit-db') ? sys.read('proc/sys/vm/swappiness')!.trim() : null;
        active.splice(0, active.length, ...profiles);
      },
    },
  };
}

test('a tuned profile among the persisted files is activated after them; rollback switches tuned back first', () => {
  const { stateDir, sys, dir, before } = setup();
  const { tuned, calls } = fakeTuned(sys, ['virtual-guest']);
  const withTuned = { ...sys, tuned };
  const out = mkdtempSync(join(tmpdir(), 'numakit-persist-'));
  const persist = [{ path: join(out, 'tuned/numakit-db/tuned.conf'), text: '[main]\n' }];
  const swap: Change = { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: 'r' };
  const cs = applyPlan(withTuned, planChanges(sys, [swap]), {
    stateDir,
    source: 'p',
    persist,
    tunedProfile: 'numakit-db',
  });
  assert.deepEqual(cs.tuned, { profile: 'numakit-db', old: ['virtual-guest'], state: 'written' });
  assert.deepEqual(calls, [['numakit-db']]);
  const [undo] = rollback(withTuned, { stateDir });
  assert.deepEqual(calls, [['numakit-db'], ['virtual-guest']]);
  assert.equal(undo!.changeSet.tuned?.state, 'restored');
  assert.equal(undo!.changeSet.status, 'rolled-back');
  // tuned put back 10 (what it found); the journal's entry then put back the value from before the apply.
  assert.deepEqual(treeContents(dir), before);
  assert.equal(existsSync(join(out, 'tuned/numakit-db/tuned.conf')), false);
});

test('tuned with no profile before is turned off by rollback; a failed switch fails the apply and is undone', () => {
  const { stateDir, sys, dir, before } = setup();
  const { tuned, calls } = fakeTuned(sys, []);
  const withTuned = { ...sys, tuned };
  const out = mkdtempSync(join(tmpdir(), 'numakit-persist-'));
  const persist = [{ path: join(out, 'tuned/numakit-db/tuned.conf'), text: '[main]\n' }];
  applyPlan(withTuned, [], { stateDir, source: 'p', persist, tunedProfile: 'numakit-db' });
  rollback(withTuned, { stateDir });
  assert.deepEqual(calls, [['numakit-db'], []]);

  const failing = { ...sys, tuned: fakeTuned(sys, ['balanced'], { fail: true }).tuned };
  const swap: Change = { kind: 'sysctl', target: 'vm.swappiness', value: '10', reason: 'r' };
  assert.throws(
    () => applyPlan(failing, planChanges(sys, [swap]), { stateDir, source: 'q', persist, tunedProfile: 'numakit-db' }),
    /apply failed: tuned-adm profile numakit-db failed: no such profile; it had changed \d+ value\(s\) \(.*\): all rolled back/,
  );
  assert.deepEqual(treeContents(dir), before);
  assert.equal(existsSync(join(out, 'tuned/numakit-db/tuned.conf')), false);
});

test('irqbalance is steered, not stopped: its banned IRQs are journaled, set, read back, and put back by rollback', () => {
  const { stateDir, sys } = setup();
  let banned = [7];
  const sent: number[][] = [];
  const irqbalance = {
    banned: () => [...banned],
    setBanned(irqs: readonly number[]) {
      sent.push([...irqs]);
      banned = [...irqs];
    },
  };
  const steered = { ...sys, irqbalance };
  const ban: Change = { kind: 'irqbalance-ban', target: 'irqbalance', value: '7,40', reason: 'r' };
  const plan = planChanges(steered, [ban, CHANGES[4]!]);
  assert.deepEqual(
    plan.map((p) => [p.path, p.current, p.action]),
    [
      [null, '7', 'change'],
      ['proc/irq/40/smp_affinity_list', '0-3', 'change'],
    ],
  );
  const cs = applyPlan(steered, plan, { stateDir, source: 'p' });
  assert.deepEqual(banned, [7, 40]);
  assert.equal(cs.entries[0]!.old, '7');
  rollback(steered, { stateDir });
  assert.deepEqual(sent, [[7, 40], [7]]);
  banned = [];
  assert.equal(planChanges(steered, [ban])[0]!.current, 'none');
  // Without a reachable irqbalance the change is absent (nothing to steer).
  assert.equal(planChanges(sys, [ban])[0]!.action, 'absent');
});
