// The overview's stat section: miss share and the processes with most remote memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statOverview } from '../../../src/cli/stat_overview.js';
import type { Context } from '../../../src/cli/context.js';
import { missShare } from '../../../src/render/stat_overview.js';
import { fixtureRoot } from './helpers.js';

test('missShare is numa_miss over numa_hit + numa_miss, null without allocations', () => {
  assert.equal(missShare({ numa_hit: 75, numa_miss: 25 }), 25);
  assert.equal(missShare({ numa_hit: 0, numa_miss: 0 }), null);
});

function ctxOf(name: string): Context {
  return { root: fixtureRoot(name), rootGiven: true, out: () => {}, err: () => {}, isTTY: false, color: false };
}

test('the section names the miss share, the worst node and the processes with most remote memory', async () => {
  const section = await statOverview(ctxOf('four-node'));
  assert.ok(section !== null);
  const lines = section.text.split('\n');
  // 34579 misses / (121235567 hits + 34579 misses) over the four nodes; node 0 has 12 of 81234579
  assert.equal(lines[0], 'stat: numa_miss 0.03% of allocations since boot (most on node 1: 0.09%)');
  assert.match(lines[2]!, /^\s+1403 hugeapp\s+1 GiB remote\s+locality 0\.00$/);
  assert.match(lines[3]!, /^\s+1302 java\s+586\.4 MiB remote\s+locality 0\.25$/);
  // postgres ran on nodes 0 and 1 with memory on both: 46% of it is remote from where it ran.
  assert.match(lines[4]!, /^\s+1201 postgres\s+64\.8 MiB remote\s+locality 0\.54$/);
  assert.equal(lines.length, 7);
  const data = section.data as {
    mostRemote: { pid: number; remoteBytes: number }[];
    nodes: { node: number; missPercent: number | null }[];
  };
  assert.deepEqual(
    data.mostRemote.map((p) => p.pid),
    [1403, 1302, 1201],
    '--json has the same processes',
  );
  assert.equal(data.nodes.length, 4);
});

test('no NUMA statistics: no section', async () => {
  assert.equal(await statOverview(ctxOf('../../fixtures/stat/four-node/proc')), null);
});
