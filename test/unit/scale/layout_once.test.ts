// doctor's and the overview's topology (discoverForLayout): on a machine whose sockets hold several
// nodes the L3s tell SNC from NPS, so the caches are read, but only they: each CPU's topology
// files once (a large machine has thousands of them), and the same topology as a full discovery.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { discoverForLayout, discoverTopology } from '../../../src/discover/topology.js';
import { nodeLayout } from '../../../src/model/layout.js';
import { openRoot } from '../../../src/sysfs/root.js';

const NPS4 = fileURLToPath(new URL('../../../examples/epyc-nps4', import.meta.url));

test('several nodes a socket: the caches are read, each CPU file once, as a full discovery says', () => {
  const reads = new Map<string, number>();
  const root = {
    ...openRoot(NPS4),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file') reads.set(rel, (reads.get(rel) ?? 0) + 1);
    },
  };
  const t = discoverForLayout(root);
  assert.ok((nodeLayout(t)?.nodesPerPackage ?? 0) > 1, 'the example has several nodes a socket');
  assert.ok(t.caches.length > 0 && t.cpus.every((c) => c.l3.length > 0), 'caches and L3s read');
  const twice = [...reads].filter(([rel, n]) => /\/cpu\d+\/(topology|online)/.test(rel) && n > 1);
  assert.deepEqual(twice, [], 'CPU topology files read once');
  assert.deepEqual(t, discoverTopology(openRoot(NPS4), { caches: true }));
});
