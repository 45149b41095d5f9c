// apply --persist writes what the dry run says: a value the profile accepts and finds already set
// (spark-2s: THP defrag madvise, the spark profile preferring never) is persisted as it is, not
// replaced at the next boot by the preferred value the dry run counted as already right.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { profileSource } from '../../../src/cli/profile_source.js';
import { planChanges } from '../../../src/actuate/targets.js';
import { dedupeChanges } from '../../../src/model/change.js';
import { renderPersistFiles } from '../../../src/render/changes_persist.js';
import { runMain } from '../../helpers/cli.js';
import { EXAMPLES } from '../plan/machines.js';
import { fakeSystem } from './fake_system.js';

test('spark-2s --profile spark: the tuned profile keeps THP defrag madvise, as the dry run says', async () => {
  const dry = await runMain(['--example', 'spark-2s', 'apply', '--profile', 'spark']);
  assert.match(
    dry.out,
    /^already set \(\d+\):\n(?: {2}.*\n)*? {2}\/sys\/kernel\/mm\/transparent_hugepage\/defrag: madvise$/m,
  );
  const sys = fakeSystem(join(EXAMPLES, 'spark-2s'));
  const src = profileSource(sys, 'spark', undefined);
  const plan = planChanges(sys, dedupeChanges(src.changes));
  const tuned = renderPersistFiles(plan, { name: 'spark' }).find((f) => f.path.endsWith('tuned.conf'))!;
  assert.match(tuned.text, /^transparent_hugepage\.defrag=madvise$/m);
  assert.doesNotMatch(tuned.text, /transparent_hugepage\.defrag=never/);
  // what it changes is persisted with its new value
  assert.match(tuned.text, /^transparent_hugepages=never$/m);
});
