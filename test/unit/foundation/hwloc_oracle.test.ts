// The hwloc oracle (docs/topo.md, "Equal to hwloc"): for every tree numakit has (the shipped
// examples, the test fixtures and the generated shapes of test/fixtures/hwloc_shapes.ts),
// numakit's `topo --xml` is compared with hwloc's own reading of the tree: the XML in canonical
// form (test/helpers/hwloc_canon.ts), lstopo's drawing with and without I/O, and hwloc-calc's
// answers on both. A tree hwloc cannot read itself (a fixture with no CPU directories at all) is
// skipped with hwloc's own reason. Every tree must be equal except those of KNOWN, each with its reason;
// a known one that becomes equal fails too, so the table in docs/topo.md stays true.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SHAPES, writeShape } from '../../fixtures/hwloc_shapes.js';
import { runMain } from '../../helpers/cli.js';
import { canonicalHwlocXml } from '../../helpers/hwloc_canon.js';
import { compareWithHwloc, describeDifferences } from '../../helpers/hwloc_oracle.js';
import { oracleTrees } from '../../helpers/hwloc_trees.js';
import { skipUnlessTools } from '../../helpers/tools.js';

/** Trees that still differ from hwloc, and why (docs/topo.md has the same table). */
const KNOWN: Record<string, string> = {};

const tmp = mkdtempSync(join(tmpdir(), 'numakit-oracle-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** null when hwloc reads the tree, else hwloc's own reason (its message, less the plugin noise). */
function hwlocRefuses(tree: string): string | null {
  const r = spawnSync('lstopo-no-graphics', ['--input', tree, '--of', 'console', '--no-io'], { encoding: 'utf8' });
  if (r.status === 0) return null;
  return r.stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !/discovery component/.test(l))
    .join(' ');
}

describe('hwloc oracle: topo --xml equals lstopo --of xml', {
  skip: skipUnlessTools('lstopo-no-graphics', 'hwloc-calc'),
}, () => {
  const all = oracleTrees(tmp);
  const summary = { equal: 0, differ: 0, unreadable: [] as string[] };
  for (const { name, dir, prepare } of all) {
    it(name, async (t) => {
      prepare();
      const refused = hwlocRefuses(dir);
      if (refused !== null) {
        summary.unreadable.push(name);
        return t.skip(`hwloc cannot read this tree: ${refused}`);
      }
      const r = await runMain(['--root', dir, 'topo', '--xml']);
      assert.equal(r.code, 0, r.err);
      const diff = describeDifferences(compareWithHwloc(dir, r.out, join(tmp, `${name.replace(/\//g, '_')}.xml`)));
      if (diff === '') summary.equal++;
      else summary.differ++;
      if (KNOWN[name] === undefined) {
        if (diff !== '') assert.fail(`${name} differs from hwloc:\n${diff}`);
      } else assert.notEqual(diff, '', `${name} now equals hwloc: remove it from KNOWN (and docs/topo.md)`);
    });
  }
  after(() => {
    console.log(
      `# hwloc oracle: ${summary.equal} equal, ${summary.differ} differ, ${summary.unreadable.length} hwloc cannot read (${summary.unreadable.join(', ')})`,
    );
  });
});

describe('a snapshot carries every file hwloc reads', {
  skip: skipUnlessTools('lstopo-no-graphics', 'hwloc-calc'),
}, () => {
  for (const name of ['pci-bridges', 'memory-modules', 'hybrid-capacity', 'memory-side-cache']) {
    it(`${name}: the snapshot's XML and drawing equal the tree's`, async () => {
      const dir = join(tmp, 'snap-src', name);
      writeShape(dir, SHAPES.find((s) => s.name === name)!);
      const snap = join(tmp, 'snap', name);
      const s = await runMain(['--root', dir, 'snapshot', snap]);
      assert.equal(s.code, 0, s.err);
      const xml = spawnSync('lstopo-no-graphics', ['--input', dir, '--of', 'xml'], { encoding: 'utf8' }).stdout;
      const fromSnap = spawnSync('lstopo-no-graphics', ['--input', snap, '--of', 'xml'], { encoding: 'utf8' }).stdout;
      assert.deepEqual(canonicalHwlocXml(fromSnap), canonicalHwlocXml(xml));
      const r = await runMain(['--root', snap, 'topo', '--xml']);
      assert.equal(describeDifferences(compareWithHwloc(snap, r.out, join(tmp, `snap-${name}.xml`))), '');
    });
  }
});
