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

describe('a machine whose nodes are all under the reserve', () => {
  const tiny = join(dir, 'tiny');
  writeSynthMachine(tiny, {
    threadsPerCore: 1,
    nodes: [
      { id: 0, cpus: [0, 1], memGiB: 1.5, freeGiB: 1 },
      { id: 1, cpus: [2, 3], memGiB: 1.5, freeGiB: 1 },
    ],
  });
  const cases: [string[], RegExp][] = [
    [['spark-standalone'], /MemTotal 1\.5 GiB .*the smallest executor needs 3 GiB/],
    [['spark-yarn'], /the smallest executor needs 5 GiB \(1 \+ 1 overhead .* \+ 1 \(ApplicationMaster container\)\)/],
    [['spark-k8s', '--k8s-node', 'w'], /the smallest executor needs 2 GiB/],
    [
      ['mysql', '--buffer-pool', '256m', '--distro', 'debian'],
      /1\.25 GiB does not fit this machine: its CPU nodes can take 0 GiB/,
    ],
    [
      ['postgres', '--buffer-pool', '256m', '--distro', 'debian', '--pg-version', '15'],
      /1\.25 GiB does not fit this machine/,
    ],
    [['redis'], /MemTotal 1\.5 GiB .*0 MiB of maxmemory/],
    [['jvm', '--heap', '256m', '--jar', '/a.jar'], /0\.25 GiB \+ 1 GiB native = 1\.25 GiB does not fit/],
    [['service', '--name', 'x', '--exec', '/bin/true', '--per-node'], /MemTotal 1\.5 GiB is not more than its reserve/],
  ];
  for (const [args, message] of cases)
    it(`plan ${args[0]} is refused with its numbers, exit 2`, async () => {
      const r = await runMain(['--root', tiny, 'plan', ...args]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /\n\s+at /);
    });
});
