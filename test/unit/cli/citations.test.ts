// What numakit cites a user must be able to look up. The field reports it was built from are
// not published: no help text, man page, PLAN.md or document may send a user to "field report
// 000"; where one is the source, the recipe it gave is said (the knowledge table's sources).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_DIR, runMain } from '../../helpers/cli.js';

const UNLOOKABLE = /\b(?:field )?report \d{3}\b/i;

test("the man page (every command's help) cites no field report by number", async () => {
  const r = await runMain(['help', '--man']);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, UNLOOKABLE);
});

test('Spark plans (PLAN.md and their summaries) say the recipe, not a report number', async () => {
  for (const w of [['spark-standalone'], ['spark-yarn'], ['spark-k8s', '--k8s-node', 'n1']]) {
    const r = await runMain(['--example', 'spark-2s', 'plan', ...w]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, UNLOOKABLE, w[0]);
    if (w[0] === 'spark-standalone') assert.match(r.out, /usual recipe \(memory = node x 0\.85, overhead on top\)/);
  }
});

test("apply's notes give the reasons without a report number", async () => {
  const r = await runMain(['--example', 'spark-2s', 'apply', '--profile', 'database']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /converges without scan storms/);
  assert.doesNotMatch(r.out, UNLOOKABLE);
});

test('README and docs cite no field report by number', () => {
  const docs = readdirSync(join(REPO_DIR, 'docs')).filter((f) => f.endsWith('.md'));
  for (const f of ['README.md', ...docs.map((d) => `docs/${d}`)]) {
    const text = readFileSync(join(REPO_DIR, f), 'utf8');
    const m = UNLOOKABLE.exec(text);
    assert.equal(m, null, `${f}: '${m?.[0]}' at offset ${m?.index}`);
  }
});
