// Every planner on every example machine, against test/golden/plan/<machine>/<case>.txt.
// UPDATE_GOLDEN=1 rewrites them; review the diff like code.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { NumakitError } from '../../../src/model/errors.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { renderPlan, renderPlanText } from '../../../src/render/plan/index.js';
import { CASES, exampleMachine, exampleNames } from './machines.js';

const GOLDEN = fileURLToPath(new URL('../../golden/plan/', import.meta.url));

function planText(machine: string, workload: string, raw: Record<string, string | boolean | undefined>): string {
  try {
    return renderPlanText(renderPlan(planWorkload(workload, exampleMachine(machine), raw)));
  } catch (e) {
    if (e instanceof NumakitError) return `error: ${e.message}\n`;
    throw e;
  }
}

for (const machine of exampleNames()) {
  for (const c of CASES) {
    test(`golden: plan ${c.name} on example ${machine}`, () => {
      const path = `${GOLDEN}${machine}/${c.name}.txt`;
      const got = planText(machine, c.workload, c.raw);
      if (process.env.UPDATE_GOLDEN === '1') {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, got);
        return;
      }
      assert.ok(existsSync(path), `${path} is missing: a new example or case? run UPDATE_GOLDEN=1 and review the files`);
      assert.equal(got, readFileSync(path, 'utf8'));
    });
  }
}
