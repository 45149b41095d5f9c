// `numakit topo --only TYPE [-p]` prints what `lstopo --only TYPE [-p]` prints for the same tree
// (hwloc is the oracle; skipped where hwloc-nox is absent), on shapes with groups at several
// levels, clusters, CPU-less nodes and a PCI tree; and its usage errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lstopoSize, pciClassName } from '../../../src/render/topo_only.js';
import { ONLY_TYPES } from '../../../src/render/topo_only_types.js';
import { SHAPES, writeShape } from '../../fixtures/hwloc_shapes.js';
import { runMain } from '../../helpers/cli.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-only-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('topo --only equals lstopo --only', { skip: skipUnlessTools('lstopo-no-graphics') }, () => {
  for (const name of ['pci-bridges', 'hierarchical-16node-3level', 'cpuless-equidistant', 'clusters', 'hmat-tiers']) {
    it(name, async () => {
      const dir = join(tmp, name);
      writeShape(dir, SHAPES.find((s) => s.name === name)!);
      for (const type of ONLY_TYPES)
        for (const p of [[], ['-p']]) {
          const want = spawnSync('lstopo-no-graphics', ['--input', dir, '--only', type, ...p], { encoding: 'utf8' });
          const got = await runMain(['--root', dir, 'topo', '--only', type, ...p]);
          assert.equal(got.out, want.stdout, `--only ${type} ${p.join(' ')}`);
        }
    });
  }
});

describe('topo --only', () => {
  it('sizes and PCI classes as lstopo writes them', () => {
    assert.equal(lstopoSize(48 * 1024), '48KB');
    assert.equal(lstopoSize(30 * 2 ** 20), '30MB');
    assert.equal(lstopoSize(8 * 2 ** 30), '8192MB');
    assert.equal(lstopoSize(16 * 2 ** 30), '16GB');
    assert.equal(pciClassName(0x0108), 'NVMExp');
    assert.equal(pciClassName(0x0280), 'Network');
    assert.equal(pciClassName(0x1200), 'ProcessingAccelerator');
  });
  it('a type lstopo does not know, -p without --only, -p with -l: usage errors', async () => {
    for (const args of [['--only', 'socket'], ['-p'], ['--only', 'pu', '-p', '-l'], ['--only', 'pu', '--json']]) {
      const r = await runMain(['--example', 'spark-2s', 'topo', ...args]);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, /topo/);
    }
  });
});
