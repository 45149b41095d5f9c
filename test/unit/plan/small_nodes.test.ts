// A usable node smaller than the reserve (2 GiB: small VMs, a node mostly taken by hugepages)
// has a negative budget. A plan that commits nothing there is not over it: `plan service
// --node 0` on such a machine exited 70 ("plan commits 0 GiB on node 1, over its budget of
// -0.52 GiB"); a plan that does commit there is refused with the numbers, as before.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeSynthMachine } from '../../fixtures/synth.js';
import { runMain } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-small-nodes-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeSynthMachine(dir, {
  threadsPerCore: 1,
  nodes: [
    { id: 0, cpus: [0, 1], memGiB: 2.5, freeGiB: 2 },
    { id: 1, cpus: [2, 3], memGiB: 1.5, freeGiB: 1 },
  ],
});

describe('a node under the reserve', () => {
  it('a plan that commits nothing there runs, and shows the node with 0 committed', async () => {
    const r = await runMain([
      '--root',
      dir,
      'plan',
      'service',
      '--name',
      'x',
      '--exec',
      '/bin/true',
      '--node',
      '0',
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    const md = (JSON.parse(r.out) as { files: { path: string; content: string }[] }).files.find(
      (f) => f.path === 'PLAN.md',
    )!.content;
    assert.match(md, /^\| 1 \| 1\.5 GiB \| 2 GiB \| -0\.5 GiB \| not known \| - \|/m);
  });

  it('a plan that needs it is still refused with the numbers', async () => {
    const r = await runMain(['--root', dir, 'plan', 'service', '--name', 'x', '--exec', '/bin/true', '--node', '1']);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /^numakit: service: node 1: MemTotal 1\.5 GiB is not more than its reserve \(2 GiB/);
  });
});
