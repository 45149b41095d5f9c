import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeTopology, MAX_GUEST_MIB, resolveTopology, TopologyError, type Topology } from './topology.js';
import { LAB_TOPOLOGIES, THREE_NODE_CXL } from './topologies.js';

const base: Topology = { name: 't', nodes: 2, cpus: 1, memMiB: 256 };

describe('resolveTopology', () => {
  it('assigns CPU ids in node order and defaults to 10/20 distances', () => {
    const r = resolveTopology({ ...base, cpus: [2, 1] });
    assert.deepEqual(
      r.nodes.map((n) => n.cpus),
      [[0, 1], [2]],
    );
    assert.deepEqual(r.distances, [
      [10, 20],
      [20, 10],
    ]);
    assert.equal(r.explicitDistances, false);
    assert.equal(r.totalMiB, 512);
  });

  it('gives memory-only nodes no CPUs', () => {
    const r = resolveTopology(THREE_NODE_CXL);
    assert.deepEqual(
      r.nodes.map((n) => n.cpus.length),
      [2, 2, 0],
    );
    assert.equal(describeTopology(r), '3 nodes, cpus 2/2/0, MiB 512/512/256, distances 10/21/30/32, HMAT');
  });

  it('accepts every shared topology', () => {
    for (const t of LAB_TOPOLOGIES) assert.ok(resolveTopology(t).totalMiB <= MAX_GUEST_MIB, t.name);
  });

  const bad: Array<[string, Topology, RegExp]> = [
    ['list length', { ...base, cpus: [1, 1, 1] }, /3 values given for 2 nodes/],
    ['too much memory', { ...base, memMiB: 7000 }, /exceeds 12288 MiB/],
    ['no CPUs', { ...base, cpus: 0 }, /at least one CPU/],
    ['memoryless node 0', { ...base, memMiB: [0, 256] }, /node 0 needs memory/],
    ['unknown memory-only node', { ...base, memoryOnly: [5] }, /node 5 does not exist/],
    ['matrix shape', { ...base, distances: [[10, 20]] }, /must be 2x2/],
    [
      'local distance',
      {
        ...base,
        distances: [
          [10, 20],
          [20, 11],
        ],
      },
      /1->1 must be 10/,
    ],
    [
      'remote distance',
      {
        ...base,
        distances: [
          [10, 5],
          [20, 10],
        ],
      },
      /0->1 must be an integer in 11..254/,
    ],
  ];
  for (const [name, t, re] of bad) {
    it(`rejects: ${name}`, () =>
      assert.throws(
        () => resolveTopology(t),
        (e: unknown) => e instanceof TopologyError && re.test(e.message),
      ));
  }
});
