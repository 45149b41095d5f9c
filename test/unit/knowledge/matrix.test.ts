// The matrix: every example machine x every profile (and, where the advice depends on it, each
// placement). doctor, apply and plan read one table, so:
//   - `apply --profile P` is accepted;
//   - every finding doctor can fix on a setting, apply changes too (they want the same);
//   - once apply's values are in place (written by this test into a scratch copy of the example,
//     with the kernel's manners of the apply tests' fake system, then put back), doctor raises no
//     finding on a setting apply set (or found already set);
//   - the plan of each workload lists exactly the table's settings of its profile, wanting what
//     apply and doctor want, and says "apply sets it" exactly where apply would change it;
//   - every profile name (aliases too) is taken by doctor and apply through the command line, and
//     the commands a plan prints name a profile they take.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { planChanges } from '../../../src/actuate/targets.js';
import { profileSource } from '../../../src/cli/profile_source.js';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { dedupeChanges, type PlannedChange } from '../../../src/model/change.js';
import { parseCpuList } from '../../../src/model/cpuset.js';
import { isProblem, type Problem } from '../../../src/model/finding.js';
import { doctorProfile } from '../../../src/policy/doctor/profiles.js';
import { runDoctor } from '../../../src/policy/doctor/rules.js';
import { settingOf } from '../../../src/policy/doctor/setting_of.js';
import { formatResolved, SETTING_LABELS } from '../../../src/policy/knowledge/labels.js';
import { TABLE } from '../../../src/policy/knowledge/table.js';
import { CLASSES, type Placement, type SettingKey, type WorkloadClass } from '../../../src/policy/knowledge/types.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { ALIASES } from '../../../src/policy/knowledge/profiles.js';
import { runMain } from '../../helpers/cli.js';
import { fakeSystem } from '../apply/fake_system.js';
import { CASES, EXAMPLES, exampleMachine, exampleNames } from '../plan/machines.js';

const scratch = mkdtempSync(join(tmpdir(), 'numakit-matrix-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Each class once; the classes whose advice depends on placement also with each placement given. */
const RUNS: { klass: WorkloadClass; placement?: Placement }[] = CLASSES.flatMap((klass) =>
  TABLE[klass].placement === 'depends'
    ? [{ klass }, { klass, placement: 'bound' as const }, { klass, placement: 'unpinned' as const }]
    : [{ klass }],
);

const label = (r: { klass: string; placement?: string }) =>
  `${r.klass}${r.placement === undefined ? '' : ` --placement ${r.placement}`}`;

/** Settings whose changes apply plans here with one of these actions. */
function settingsOf(
  src: ReturnType<typeof profileSource>,
  plan: readonly PlannedChange[],
  actions: readonly PlannedChange['action'][],
): Set<SettingKey> {
  const out = new Set<SettingKey>();
  for (const p of plan) {
    if (!actions.includes(p.action)) continue;
    const s = src.tuning.settings.find((g) =>
      g.changes.some((c) => c.kind === p.change.kind && String(c.target) === String(p.change.target)),
    );
    if (s !== undefined) out.add(s.setting);
  }
  return out;
}

/** Writes the planned values the way the kernel takes them (the fake system); returns how to put the old contents back. */
function writeValues(sys: ReturnType<typeof fakeSystem>, plan: readonly PlannedChange[]): () => void {
  const undo: (() => void)[] = [];
  for (const p of plan.filter((x) => x.action === 'change')) {
    if (p.path === null) continue; // services: the examples have no service manager
    const old = sys.read(p.path)!;
    sys.write(p.path, p.change.value);
    undo.push(() => writeFileSync(join(sys.root.dir, p.path!), old));
    // The kernel moves an IRQ's delivery (effective_affinity_list, x86: one CPU) into the new mask.
    const eff =
      p.change.kind === 'irq-affinity' ? p.path.replace(/smp_affinity_list$/, 'effective_affinity_list') : null;
    const oldEff = eff === null ? null : sys.read(eff);
    if (eff !== null && oldEff !== null) {
      writeFileSync(join(sys.root.dir, eff), `${parseCpuList(p.change.value)[0]}\n`);
      undo.push(() => writeFileSync(join(sys.root.dir, eff), oldEff));
    }
  }
  return () => undo.reverse().forEach((u) => u());
}

async function doctorProblems(dir: string, klass: WorkloadClass, placement: Placement | undefined): Promise<Problem[]> {
  const input = await gatherDoctorInput(openRoot(dir, 'scratch'));
  return runDoctor(input, doctorProfile({ klass, alias: null }, input, placement)).filter(isProblem);
}

for (const example of exampleNames()) {
  describe(`example ${example}`, () => {
    const dir = join(scratch, example);
    cpSync(join(EXAMPLES, example), dir, { recursive: true, verbatimSymlinks: true });

    for (const run of RUNS) {
      test(`apply ${label(run)}, then doctor ${label(run)}`, async () => {
        const sys = fakeSystem(dir);
        const src = profileSource(sys, run.klass, run.placement);
        const plan = planChanges(sys, dedupeChanges(src.changes));
        const changing = settingsOf(src, plan, ['change']);
        // Every finding doctor can fix on a setting, apply changes too.
        const found = await doctorProblems(dir, run.klass, run.placement);
        for (const f of found) {
          const s = settingOf(f.id);
          if (s === null || s === 'tuned' || f.changes.length === 0) continue;
          assert.ok(changing.has(s), `doctor ${f.id} (${f.title}) but apply changes no ${SETTING_LABELS[s]}`);
        }
        // IRQs both ways, one by one: doctor flags exactly the IRQs apply re-pins (one rule).
        const pinnedBy = (cs: readonly { kind: string; target: unknown }[]) =>
          cs.flatMap((c) => (c.kind === 'irq-affinity' ? [Number(c.target)] : [])).sort((a, b) => a - b);
        assert.deepEqual(
          [...new Set(pinnedBy(found.filter((f) => f.id.startsWith('irq-locality/')).flatMap((f) => f.changes)))],
          pinnedBy(plan.filter((p) => p.action === 'change').map((p) => p.change)),
          'the IRQs doctor flags are the IRQs apply changes',
        );
        const set = settingsOf(src, plan, ['change', 'same']);
        const restore = writeValues(sys, plan);
        try {
          for (const f of await doctorProblems(dir, run.klass, run.placement)) {
            const s = settingOf(f.id);
            assert.ok(s === null || !set.has(s), `after apply: doctor ${f.id}: ${f.title}`);
          }
        } finally {
          restore();
        }
      });
    }

    const machine = exampleMachine(example);
    for (const c of CASES) {
      test(`plan ${c.name}: "Before you start" lists the table's settings of its profile, as apply sees them`, async () => {
        let d: ReturnType<typeof planWorkload>;
        try {
          d = planWorkload(c.workload, machine, c.raw);
        } catch {
          return; // a plan that refuses says so in its golden file
        }
        const t = d.tuning;
        const klass = t.profile.name;
        assert.deepEqual(
          t.rows.map((r) => r.setting),
          Object.keys(TABLE[klass].settings),
          "exactly the table's settings, in its order",
        );
        const md = (await renderPlan(d)).find((f) => f.path === 'PLAN.md')!.content;
        const sys = fakeSystem(join(EXAMPLES, example));
        const src = profileSource(sys, klass, TABLE[klass].placement === 'depends' ? 'bound' : undefined);
        const plan = planChanges(sys, dedupeChanges(src.changes));
        const changing = settingsOf(src, plan, ['change']);
        for (const r of t.rows) {
          assert.ok(md.includes(`| ${r.label} | ${r.want} |`), `PLAN.md row for ${r.label}`);
          assert.equal(
            r.want,
            formatResolved(r.setting, src.profile.wants[r.setting]!),
            `${r.label}: plan and apply want the same`,
          );
          if (r.status === 'change') assert.ok(changing.has(r.setting), `${r.label}: the plan says apply sets it`);
          if (r.status === 'ok') assert.ok(!changing.has(r.setting), `${r.label}: the plan says it is already so`);
        }
        assert.match(md, new RegExp(`\`numakit apply --profile ${klass}( --placement bound)?\``));
      });
    }
  });
}

describe('the same profile names in doctor, apply and plan', () => {
  for (const name of [...CLASSES, ...Object.keys(ALIASES)]) {
    test(`--profile ${name}: doctor and apply take it (spark-2s)`, async () => {
      for (const cmd of ['doctor', 'apply']) {
        const r = await runMain(['--example', 'spark-2s', cmd, '--profile', name]);
        assert.ok(r.code === 0 || r.code === 1, `${cmd} --profile ${name}: exit ${r.code}: ${r.err}`);
        assert.doesNotMatch(r.err, /unknown profile/);
      }
    });
  }
  test('the apply and doctor commands every plan prints take the profile it names', () => {
    const machine = exampleMachine('spark-2s');
    for (const c of CASES) {
      const t = planWorkload(c.workload, machine, c.raw).tuning;
      for (const cmd of [t.apply, t.doctor]) {
        const m = /^numakit (apply|doctor) --profile (\S+)( --placement bound)?$/.exec(cmd);
        assert.ok(m !== null, cmd);
        assert.ok((CLASSES as readonly string[]).includes(m[2]!), `${c.name}: ${cmd}`);
      }
    }
  });
});
