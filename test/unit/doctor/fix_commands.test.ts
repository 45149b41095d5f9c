// Doctor's "now" and "persist" commands, pasted top to bottom as the report prints them, run in
// a scratch copy of each machine (fix_script.ts): they succeed, a second paste changes nothing
// (idempotent: no appended duplicates), files they write into /etc hold each line once, and
// afterwards doctor no longer raises the findings whose fix is a kernel setting.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { isProblem, type Problem } from '../../../src/model/finding.js';
import { doctorProfile } from '../../../src/policy/doctor/profiles.js';
import { runDoctor } from '../../../src/policy/doctor/rules.js';
import { settingOf } from '../../../src/policy/doctor/setting_of.js';
import { TABLE } from '../../../src/policy/knowledge/table.js';
import { CLASSES, type Placement, type WorkloadClass } from '../../../src/policy/knowledge/types.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { writeDoctorMachine } from '../../fixtures/doctor/machine.js';
import { EXAMPLES } from './cli_helpers.js';
import { intoRoot, kernelize, kernelTargets, pasted, restore, runScript, tree, writeStubs } from './fix_script.js';
import { needTools } from '../../helpers/tools.js';

const scratch = mkdtempSync(join(tmpdir(), 'numakit-fixes-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const bin = writeStubs(scratch);

const MACHINES: Record<string, (dir: string) => void> = {
  'doctor fixture untuned': (dir) => writeDoctorMachine(dir, 'untuned'),
  'example spark-2s': (dir) => cpSync(join(EXAMPLES, 'spark-2s'), dir, { recursive: true, verbatimSymlinks: true }),
  'example cxl-3node': (dir) => cpSync(join(EXAMPLES, 'cxl-3node'), dir, { recursive: true, verbatimSymlinks: true }),
  'example vm-flat-32': (dir) => cpSync(join(EXAMPLES, 'vm-flat-32'), dir, { recursive: true, verbatimSymlinks: true }),
};

const RUNS: { klass: WorkloadClass; placement?: Placement }[] = CLASSES.flatMap((klass) =>
  TABLE[klass].placement === 'depends'
    ? [
        { klass, placement: 'bound' as const },
        { klass, placement: 'unpinned' as const },
      ]
    : [{ klass }],
);

async function problems(dir: string, klass: WorkloadClass, placement?: Placement): Promise<Problem[]> {
  const input = await gatherDoctorInput(openRoot(dir, 'scratch'));
  return runDoctor(input, doctorProfile({ klass, alias: null }, input, placement)).filter(isProblem);
}

function duplicates(text: string): string[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  return lines.filter((l, i) => lines.indexOf(l) !== i);
}

let n = 0;
for (const [name, make] of Object.entries(MACHINES)) {
  describe(name, () => {
    const root = join(scratch, `m${n++}`);
    make(root);
    // The directories a Debian or RHEL host has (procps, systemd, udev, tuned).
    for (const d of ['etc/sysctl.d', 'etc/tmpfiles.d', 'etc/udev/rules.d', 'etc/tuned'])
      mkdirSync(join(root, d), { recursive: true });
    const before = tree(root);
    for (const run of RUNS) {
      test(`${run.klass}${run.placement ? ` --placement ${run.placement}` : ''}: pasted twice, the fixes work and change nothing the second time`, async (t) => {
        if (!needTools(t, 'bash')) return;
        const found = await problems(root, run.klass, run.placement);
        const cmds = pasted(found);
        for (const c of cmds)
          for (const p of kernelTargets(intoRoot(c, root)))
            assert.ok(existsSync(p), `${c}: ${p} is not a kernel file here`);
        try {
          const first = runScript(root, bin, cmds);
          assert.equal(first.code, 0, `first paste failed:\n${first.out}\n${cmds.join('\n')}`);
          const once = tree(root);
          const second = runScript(root, bin, cmds);
          assert.equal(second.code, 0, `second paste failed:\n${second.out}`);
          assert.deepEqual(tree(root), once, 'a second paste changed files');
          for (const [rel, text] of once)
            if (rel.startsWith('etc/')) assert.deepEqual(duplicates(text), [], `${rel} holds a line twice`);
          kernelize(root, before);
          const left = new Set((await problems(root, run.klass, run.placement)).map((f) => f.id));
          for (const f of found) {
            if (
              settingOf(f.id) === null ||
              f.changes.length === 0 ||
              f.changes.some((c) => c.kind === 'service') ||
              f.fix.runtime.length === 0
            )
              continue;
            assert.ok(!left.has(f.id), `${f.id} is still raised after its commands ran`);
          }
        } finally {
          restore(root, before);
        }
      });
    }
  });
}
