// Discovery reads each core's ids from its first thread and each L3 once, indexing what the
// CPUs read so far share (src/sysfs/cpu_topology.ts, KnownCpus). The CPUs it finds must be the
// ones reading every CPU's own files gives: a root that records its reads (as snapshot's does)
// turns the sharing off, so each fixture and example is discovered both ways and compared.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { discoverTopology } from '../../../src/discover/topology.js';
import { knownCpus, readCpuTopology } from '../../../src/sysfs/cpu_topology.js';
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

/** 2 packages x 2 dies x 2 cores x 2 threads (CPU c: thread c % 2 of core c >> 1), with `lists` or hex masks. */
function groupedTree(dir: string, lists: boolean): void {
  const of = (c: number) => ({ pkg: c >> 3, die: c >> 2, core: c >> 1 });
  const members = (f: (c: number) => number, c: number) => [...Array(16).keys()].filter((x) => f(x) === f(c));
  const mask = (ids: number[]) =>
    ids
      .reduce((m, i) => m | (1 << i), 0)
      .toString(16)
      .padStart(8, '0');
  for (let c = 0; c < 16; c++) {
    const top = join(dir, `sys/devices/system/cpu/cpu${c}/topology`);
    mkdirSync(top, { recursive: true });
    const { pkg, die, core } = of(c);
    const pkgCpus = members((x) => of(x).pkg, c);
    const dieCpus = members((x) => of(x).die, c);
    writeFileSync(join(top, 'physical_package_id'), `${pkg}\n`);
    writeFileSync(join(top, 'die_id'), `${die % 2}\n`);
    writeFileSync(join(top, 'cluster_id'), `${core}\n`);
    writeFileSync(join(top, 'core_id'), `${core % 4}\n`);
    writeFileSync(join(top, 'thread_siblings_list'), `${core * 2}-${core * 2 + 1}\n`);
    if (lists) {
      writeFileSync(join(top, 'package_cpus_list'), `${pkgCpus[0]}-${pkgCpus.at(-1)}\n`);
      writeFileSync(join(top, 'die_cpus_list'), `${dieCpus[0]}-${dieCpus.at(-1)}\n`);
      // A cluster of one core's threads, as on x86 (its L2): no wider than the core.
      writeFileSync(join(top, 'cluster_cpus_list'), `${core * 2}-${core * 2 + 1}\n`);
    } else {
      writeFileSync(join(top, 'core_siblings'), `${mask(pkgCpus)}\n`);
      writeFileSync(join(top, 'die_cpus'), `${mask(dieCpus)}\n`);
    }
  }
}

describe('package and die ids are read once a package and die where the kernel lists their CPUs', () => {
  for (const lists of [true, false])
    it(lists ? 'package_cpus_list, die_cpus_list' : 'hex masks (core_siblings, die_cpus)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'numakit-topo-groups-'));
      try {
        groupedTree(dir, lists);
        const reads: string[] = [];
        const root = { ...openRoot(dir), onAccess: (_k: string, rel: string) => void reads.push(rel) };
        const known = knownCpus();
        const shared = [...Array(16).keys()].map((c) => readCpuTopology(root, c, { known, online: true }));
        const own = [...Array(16).keys()].map((c) => readCpuTopology(openRoot(dir), c, { online: true }));
        assert.deepEqual(shared, own);
        assert.deepEqual(
          shared.map((t) => `${t.package}/${t.die}/${t.core}`),
          own.map((_, c) => `${c >> 3}/${(c >> 2) % 2}/${(c >> 1) % 4}`),
        );
        const count = (f: string) => reads.filter((r) => r.endsWith(`/${f}`)).length;
        assert.equal(count('physical_package_id'), 2, 'one a package');
        assert.equal(count('die_id'), 4, 'one a die');
        assert.equal(count('core_id'), 8, 'one a core');
        assert.equal(count('cluster_id'), 8, 'a cluster no wider than a core, or no list: one a core');
        assert.equal(
          count('cluster_cpus_list') + count('cluster_cpus'),
          lists ? 1 : 2,
          'the list read (or both names tried) once, then not again',
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
});
