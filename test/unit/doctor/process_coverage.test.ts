// The process rules (low-locality, pinned-remote) say how many processes they could read: none
// read is "not checked: N of M processes ... unreadable (run as root)", never a pass; some read
// is "partly checked"; and "large" scales with a small machine (5% of its memory under 1 GiB).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { ProcessPlacement } from '../../../src/model/doctor_input.js';
import { present } from '../../../src/model/fact.js';
import type { Finding } from '../../../src/model/finding.js';
import { largeProcessBytes } from '../../../src/model/large_process.js';
import { doctorProfile } from '../../../src/policy/doctor/profiles.js';
import { ruleById } from '../../../src/policy/doctor/rules.js';
import { GiB, input, kernel, node, ok, proc, topology, withDistances } from './build.js';

const MiB = 2 ** 20;
const denied = (pid: number): ProcessPlacement => ({
  ...proc(pid, `app${pid}`, { 0: GiB }, [0, 1, 2, 3], { 0: 10 }),
  memory: { kind: 'no-permission' },
});
const remote = proc(7, 'remote', { 0: GiB, 1: 7 * GiB }, [0, 1, 2, 3], { 0: 50 });
const local = proc(8, 'local', { 0: 8 * GiB }, [0, 1, 2, 3], { 0: 50 });

function check(rule: string, processes: ProcessPlacement[], over = {}): Finding[] {
  const i = input({ processes: ok(processes), ...over });
  return ruleById(rule)!.check(i, doctorProfile({ klass: 'general', alias: null }, i));
}

for (const [rule, what] of [
  ['low-locality', 'process locality'],
  ['pinned-remote', 'pinned processes with remote memory'],
] as const) {
  test(`${rule}: no process readable is not checked, naming how many`, () => {
    const [f] = check(rule, [denied(1), denied(2)]);
    assert.equal(f!.severity, 'not-checked');
    assert.equal(
      f!.severity === 'not-checked' && f!.reason,
      '2 of 2 processes of 256 MiB or more unreadable (run as root)',
    );
    assert.equal(f!.title, what);
  });

  test(`${rule}: some readable is partly checked, a pass that says how many were not`, () => {
    const [f] = check(rule, [denied(1), local]);
    assert.equal(f!.severity, 'pass');
    assert.match(
      f!.title,
      /^partly checked: 1 of 2 processes of 256 MiB or more unreadable \(run as root\); of the 1 read, no /,
    );
    assert.deepEqual(f!.evidence, [{ path: 'proc/*/numa_maps', value: 'read 1 of 2 processes of 256 MiB or more' }]);
  });

  test(`${rule}: all readable says so; none sampled says none runs`, () => {
    assert.match(check(rule, [local])[0]!.title, / \(1 of 1 process of 256 MiB or more read\)$/);
    assert.match(check(rule, [])[0]!.title, / \(no process of 256 MiB or more runs\)$/);
  });

  test(`${rule}: a problem among the readable ones still says what was not read`, () => {
    const found = check(rule, [denied(1), remote]).filter((f) => f.severity === 'warning');
    assert.equal(found.length, 1);
    assert.ok(found[0]!.evidence.some((e) => e.value === 'read 1 of 2 processes of 256 MiB or more'));
  });
}

test('large scales with a small machine: 5% of its memory when that is under the fixed size', () => {
  assert.equal(largeProcessBytes(GiB, 64 * GiB), GiB);
  assert.equal(largeProcessBytes(GiB, 20 * GiB), GiB);
  assert.equal(largeProcessBytes(GiB, GiB), Math.floor(GiB / 20));
  assert.equal(largeProcessBytes(GiB, 0), GiB);
  // A 1 GiB machine: a 140 MiB process with 15% locality is reported (1 GiB alone never would).
  const small = topology({
    nodes: withDistances(
      [node(0, [0, 1], 0.5, 0.2), node(1, [2, 3], 0.5, 0.2)],
      [
        [10, 20],
        [20, 10],
      ],
    ),
    kernel: kernel({ memTotalBytes: present('proc/meminfo', GiB) }),
  });
  const app = proc(147, 'remote-app', { 0: 21 * MiB, 1: 119 * MiB }, [0, 1], { 0: 10 });
  const [f] = check('low-locality', [app], { topology: small });
  assert.equal(f!.severity, 'warning');
  assert.match(f!.title, /remote-app\(147\)/);
  const [g] = check('low-locality', [app]);
  assert.equal(g!.severity, 'pass', 'on a 32 GiB machine 140 MiB is not large');
});
