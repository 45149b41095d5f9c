// Every planner on every example machine, against test/golden/plan/<machine>/<case>.txt.
// UPDATE_GOLDEN=1 rewrites them; review the diff like code.
import { test } from 'node:test';
import { NumakitError } from '../../../src/model/errors.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { renderPlan, renderPlanText } from '../../../src/render/plan/index.js';
import { assertGolden } from '../../helpers/cli.js';
import { CASES, exampleMachine, exampleNames } from './machines.js';

async function planText(
  machine: string,
  workload: string,
  raw: Record<string, string | boolean | undefined>,
): Promise<string> {
  try {
    return renderPlanText(await renderPlan(planWorkload(workload, exampleMachine(machine), raw)));
  } catch (e) {
    if (e instanceof NumakitError) return `error: ${e.message}\n`;
    throw e;
  }
}

for (const machine of exampleNames()) {
  for (const c of CASES) {
    test(`golden: plan ${c.name} on example ${machine}`, async () => {
      assertGolden(`plan/${machine}/${c.name}.txt`, await planText(machine, c.workload, c.raw));
    });
  }
}
