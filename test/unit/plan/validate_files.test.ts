// Every file of every case on every example machine, checked by the tools users would use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NumakitError } from '../../../src/model/errors.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import type { PlanFile } from '../../../src/policy/plan/types.js';
import { planBlocks } from '../../../src/render/plan/blocks.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { CASES, exampleMachine, exampleNames } from './machines.js';
import { needTools } from '../../helpers/tools.js';
import { checkManifests } from './k8s_schemas.js';
import {
  checkShell,
  checkUnits,
  isManifest,
  isShell,
  isUnit,
  isXml,
  sparkKeyPatterns,
  sparkKeysIn,
} from './validators.js';

async function allPlans(): Promise<{ label: string; files: PlanFile[] }[]> {
  const out: { label: string; files: PlanFile[] }[] = [];
  for (const machine of exampleNames()) {
    for (const c of CASES) {
      try {
        out.push({
          label: `${c.name} on ${machine}`,
          files: await renderPlan(planWorkload(c.workload, exampleMachine(machine), c.raw)),
        });
      } catch (e) {
        if (!(e instanceof NumakitError)) throw e;
      }
    }
  }
  return out;
}

const PLANS = await allPlans();

test('there are plans to validate', () => {
  assert.ok(PLANS.length >= exampleNames().length, `only ${PLANS.length} plans`);
});

test('scripts pass bash -n and shellcheck', (t) => {
  if (!needTools(t, 'bash') || !needTools(t, 'shellcheck')) return;
  let n = 0;
  for (const p of PLANS)
    for (const f of p.files.filter(isShell)) {
      assert.equal(checkShell(f), '', `${p.label}`);
      n++;
    }
  assert.ok(n > 0);
});

test("PLAN.md's blocks (install, start, check, rollback) pass bash -n and shellcheck", (t) => {
  if (!needTools(t, 'bash') || !needTools(t, 'shellcheck')) return;
  let n = 0;
  for (const p of PLANS)
    for (const [name, text] of planBlocks(p.files.at(-1)!.content)) {
      const f = { path: `PLAN.md numakit:${name}`, content: `#!/usr/bin/env bash\n${text}\n`, mode: 0o755, about: '' };
      assert.equal(checkShell(f), '', p.label);
      n++;
    }
  assert.ok(n > 3 * PLANS.length, `${n} blocks`);
});

test('units and drop-ins pass systemd-analyze verify', (t) => {
  if (!needTools(t, 'systemd-analyze')) return;
  let n = 0;
  for (const p of PLANS) {
    const units = p.files.filter(isUnit);
    assert.equal(checkUnits(units), '', p.label);
    n += units.length;
  }
  assert.ok(n > 0);
});

test('Spark keys are documented Spark configuration keys', () => {
  const patterns = sparkKeyPatterns();
  let n = 0;
  for (const p of PLANS)
    for (const f of p.files)
      for (const k of sparkKeysIn(f)) {
        assert.ok(
          patterns.some((re) => re.test(k)),
          `${p.label}: ${f.path}: '${k}' is not in test/fixtures/plan/spark-config-keys.txt`,
        );
        n++;
      }
  assert.ok(n > 0);
});

test("generated files carry no values with shell metacharacters outside the scripts' own syntax", () => {
  for (const p of PLANS)
    for (const f of p.files.filter(isUnit)) {
      for (const l of f.content.split('\n'))
        if (!l.startsWith('#')) assert.doesNotMatch(l, /[;&|`$<>"'\\]/, `${p.label}: ${f.path}: ${l}`);
    }
});

test('yarn-site.xml parses as XML and is a Hadoop configuration', async () => {
  const { XMLParser, XMLValidator } = await import('fast-xml-parser');
  let n = 0;
  for (const p of PLANS)
    for (const f of p.files.filter(isXml)) {
      assert.equal(XMLValidator.validate(f.content), true, `${p.label}: ${f.path}`);
      const doc = new XMLParser().parse(f.content) as {
        configuration: { property: { name: string; value: unknown }[] };
      };
      const props = doc.configuration.property;
      assert.ok(
        Array.isArray(props) && props.every((x) => typeof x.name === 'string' && x.value !== undefined),
        `${p.label}: ${f.path}: every property has a name and a value`,
      );
      assert.equal(new Set(props.map((x) => x.name)).size, props.length, `${p.label}: ${f.path}: duplicate property`);
      n++;
    }
  assert.ok(n > 0);
});

test('Kubernetes manifests parse as YAML and pass the object schemas', () => {
  let n = 0;
  for (const p of PLANS)
    for (const f of p.files.filter(isManifest)) {
      assert.equal(checkManifests(f.content), '', `${p.label}: ${f.path}`);
      n++;
    }
  assert.ok(n > 0);
});
