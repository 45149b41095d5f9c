import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cpusAllowed, pagesPerNode } from './numa_maps.js';

const MAPS = `55d0 default file=/usr/bin/node mapped=10 N0=6 N1=4 kernelpagesize_kB=4
7f00 bind:1 anon=4096 dirty=4096 N1=4096 kernelpagesize_kB=4
7f80 default anon=10 dirty=10 N0=7 N1=3 kernelpagesize_kB=4
`;

it('pagesPerNode sums N<node>= over mappings, optionally anonymous only', () => {
  assert.deepEqual(pagesPerNode(MAPS), { 0: 13, 1: 4103 });
  assert.deepEqual(pagesPerNode(MAPS, { anonOnly: true }), { 0: 7, 1: 4099 });
});

it('cpusAllowed expands Cpus_allowed_list ranges', () => {
  assert.deepEqual(cpusAllowed('Name:\tsleep\nCpus_allowed:\t5\nCpus_allowed_list:\t0,2-3\n'), [0, 2, 3]);
});
