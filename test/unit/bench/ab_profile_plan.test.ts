// bench ab --numa-balancing on|off holds kernel.numa_balancing for every variant: a tuned:PROFILE
// variant's own value for it is left out of its plan (the lab's SIGINT case saw the database profile
// set AutoNUMA back to 1 under --numa-balancing off once its "large process" rule scaled with the machine).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isNumaBalancing, profilePlan } from '../../../src/bench/ab_changes.js';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { profileSource } from '../../../src/cli/profile_source.js';
import { fakeSystem } from '../apply/fake_system.js';
import { join } from 'node:path';

it('a tuned: variant leaves kernel.numa_balancing to --numa-balancing when the bench holds it', () => {
  // Planning only reads: the shipped example is never written.
  const sys = fakeSystem(join(EXAMPLES_DIR, 'spark-2s'));
  const spark = profileSource(sys, 'spark', undefined).changes;
  const own = profilePlan(sys, spark).map((p) => p.change);
  assert.ok(own.some(isNumaBalancing), `the spark profile sets numa_balancing here: ${JSON.stringify(own)}`);
  const held = profilePlan(sys, spark, { holdsNumaBalancing: true }).map((p) => p.change);
  assert.ok(!held.some(isNumaBalancing), JSON.stringify(held));
  assert.deepEqual(
    held,
    own.filter((c) => !isNumaBalancing(c)),
  );
});
