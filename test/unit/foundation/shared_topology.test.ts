// Discovery reads each core's ids from its first thread and each L3 once, indexing what the
// CPUs read so far share (src/sysfs/cpu_topology.ts, KnownCpus). The CPUs it finds must be the
// ones reading every CPU's own files gives: a root that records its reads (as snapshot's does)
// turns the sharing off, so each fixture and example is discovered both ways and compared.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST_DIR } from '../../helpers/cli.js';

const trees = [join(TEST_DIR, 'fixtures/topo'), EXAMPLES_DIR].flatMap((d) =>
  readdirSync(d)
    .filter((n) => existsSync(join(d, n, 'manifest.json')))
    .map((n) => join(d, n)),
);

describe("shared per-core and per-L3 reads give what every CPU's own files give", () => {
  for (const dir of trees) {
    it(dir.slice(dir.lastIndexOf('/', dir.lastIndexOf('/') - 1) + 1), () => {
      const shared = discoverTopology(openRoot(dir)).cpus;
      const own = discoverTopology({ ...openRoot(dir), onAccess: () => {} }).cpus;
      assert.ok(shared.length > 0);
      assert.deepEqual(shared, own);
    });
  }
});
