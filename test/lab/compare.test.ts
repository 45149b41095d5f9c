import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  alignFreeLines,
  factsFromHwloc,
  factsFromTopoJson,
  parseNumactlHardware,
  withoutFreeMemory,
} from './compare.js';

const NUMACTL =
  'available: 2 nodes (0-1)\nnode 0 cpus: 0 1\nnode 0 size: 458 MB\nnode 0 free: 428 MB\nnode 1 cpus: 2 3\nnode 1 size: 503 MB\nnode 1 free: 476 MB\n';

describe('alignFreeLines', () => {
  it('forgives free lines within the tolerance, and nothing else', () => {
    const near = NUMACTL.replace('free: 428', 'free: 425');
    assert.equal(alignFreeLines(NUMACTL, near, 4), NUMACTL);
    const far = NUMACTL.replace('free: 428', 'free: 400');
    assert.equal(alignFreeLines(NUMACTL, far, 4), far);
    const size = NUMACTL.replace('size: 458', 'size: 457');
    assert.equal(alignFreeLines(NUMACTL, size, 4), size);
  });
});

describe('facts', () => {
  it('projects topo --json and hwloc onto the same shape', () => {
    const json = {
      schemaVersion: 1,
      nodes: [
        { id: 0, cpus: [0], memTotalBytes: 100, memFreeBytes: 50, distances: { '0': 10, '1': 16 } },
        { id: 1, cpus: [1], memTotalBytes: 200, memFreeBytes: 70, distances: { '0': 16, '1': 10 } },
      ],
    };
    const hw = {
      nodes: [
        { id: 0, cpus: [0], memTotalBytes: 100 },
        { id: 1, cpus: [1], memTotalBytes: 200 },
      ],
      distances: { 0: { 0: 10, 1: 16 }, 1: { 0: 16, 1: 10 } },
    };
    assert.deepEqual(factsFromTopoJson(json), factsFromHwloc(hw));
    assert.deepEqual(factsFromTopoJson(json)[1], { id: 1, cpus: [1], memTotalBytes: 200, distances: [16, 10] });
  });

  it('a memory-only node at the expected locality has no CPUs of its own', () => {
    const hw = {
      nodes: [
        { id: 0, cpus: [0, 1], memTotalBytes: 1 },
        { id: 1, cpus: [0, 1], memTotalBytes: 1 },
      ],
    };
    assert.deepEqual(
      factsFromHwloc(hw, new Map([[1, [0, 1]]])).map((n) => n.cpus),
      [[0, 1], []],
    );
    assert.deepEqual(
      factsFromHwloc(hw, new Map([[1, [0]]])).map((n) => n.cpus),
      [
        [0, 1],
        [0, 1],
      ],
    );
  });

  it('withoutFreeMemory drops memFreeBytes at any depth', () => {
    assert.deepEqual(withoutFreeMemory({ a: { memFreeBytes: 1, b: 2 }, memFreeBytes: 3 }), { a: { b: 2 } });
  });
});

describe('parseNumactlHardware', () => {
  it('reads cpus per node (empty for memory-only) and the distance matrix', () => {
    const text = `${NUMACTL}node 2 cpus:\nnode 2 size: 251 MB\nnode distances:\nnode   0   1   2 \n  0:  10  21  30 \n  1:  21  10  32 \n  2:  30  32  10 \n`;
    assert.deepEqual(parseNumactlHardware(text), {
      cpus: { 0: [0, 1], 1: [2, 3], 2: [] },
      distances: [
        [10, 21, 30],
        [21, 10, 32],
        [30, 32, 10],
      ],
    });
  });
});
