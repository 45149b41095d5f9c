// The one IRQ placement rule (policy/knowledge/irq_placement.ts): its table, and on spark-2s the
// spark plan's promise that after apply's changes doctor's IRQ placement findings are gone.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { profileSource } from '../../../src/cli/profile_source.js';
import { planChanges, satisfies } from '../../../src/actuate/targets.js';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { dedupeChanges } from '../../../src/model/change.js';
import { isProblem } from '../../../src/model/finding.js';
import { doctorProfile } from '../../../src/policy/doctor/profiles.js';
import { runDoctor } from '../../../src/policy/doctor/rules.js';
import { judgeIrq, maskOnNode } from '../../../src/policy/knowledge/irq_placement.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { fakeSystem } from '../apply/fake_system.js';
import { EXAMPLES, exampleMachine } from '../plan/machines.js';

const NODE0 = [0, 1, 2, 3];

describe('the IRQ placement rule', () => {
  const cases: [string, number[], number[] | null, boolean, boolean][] = [
    ['mask on the node', [1, 2], null, true, true],
    ['one CPU of the node', [3], [3], true, true],
    ['default mask, served on the node today', [0, 1, 2, 3, 4, 5, 6, 7], [2], false, true],
    ['default mask, served on the other node', [0, 1, 2, 3, 4, 5, 6, 7], [5], false, false],
    ['mask on the other node', [4, 5], null, false, false],
    ['empty mask', [], null, false, false],
  ];
  for (const [name, mask, effective, placed, servedOnNode] of cases) {
    test(name, () => {
      const j = judgeIrq({ irq: 40, affinity: mask, effective }, NODE0);
      assert.equal(j.placed, placed);
      assert.equal(j.servedOnNode, servedOnNode);
      assert.equal(maskOnNode(mask, NODE0), placed);
    });
  }
  test("apply leaves alone exactly the IRQs the rule finds placed (actuate's satisfies)", () => {
    const c = { kind: 'irq-affinity' as const, target: 40, value: '0-3', reason: 'r', subset: true };
    for (const [name, mask, , placed] of cases) {
      if (mask.length === 0) continue;
      assert.equal(satisfies(c, 'proc/irq/40/smp_affinity_list', mask.join(',')), placed, name);
    }
  });
});

describe('spark-2s: doctor and apply judge NIC IRQs alike', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-irq-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(EXAMPLES, 'spark-2s'), dir, { recursive: true, verbatimSymlinks: true });

  async function irqFindings() {
    const input = await gatherDoctorInput(openRoot(dir, 'scratch'));
    return runDoctor(input, doctorProfile({ klass: 'spark', alias: null }, input, undefined))
      .filter(isProblem)
      .filter((f) => /^irq-locality\/ens/.test(f.id));
  }

  test('the default affinity (0-63) served on the NIC node today: doctor flags it, with its mask and where served', async () => {
    const found = await irqFindings();
    assert.deepEqual(found.map((f) => f.id).sort(), ['irq-locality/ens1f0', 'irq-locality/ens2f0']);
    const ens1 = found.find((f) => f.id === 'irq-locality/ens1f0')!;
    assert.ok(
      ens1.evidence.some(
        (e) => e.path === 'proc/irq/120/smp_affinity_list' && /^0-63 \(served on 0/.test(String(e.value)),
      ),
    );
  });

  test('the spark plan promises the IRQ findings are gone after apply, and they are', async () => {
    const md = (await renderPlan(planWorkload('spark-standalone', exampleMachine('spark-2s'), {}))).find(
      (f) => f.path === 'PLAN.md',
    )!.content;
    assert.match(md, /IRQ placement findings should be gone/);
    const sys = fakeSystem(dir);
    const src = profileSource(sys, 'spark', undefined);
    const plan = planChanges(sys, dedupeChanges(src.changes)).filter(
      (p) => p.action === 'change' && p.change.kind === 'irq-affinity',
    );
    assert.equal(plan.length, 32, 'apply re-pins the 32 NIC IRQs');
    for (const p of plan) {
      sys.write(p.path!, p.change.value);
      // The kernel delivers the IRQ inside its new mask (x86: one CPU of it).
      writeFileSync(
        join(dir, p.path!.replace(/smp_affinity_list$/, 'effective_affinity_list')),
        `${p.change.value.split(/[-,]/)[0]}\n`,
      );
    }
    assert.deepEqual(await irqFindings(), []);
  });
});
