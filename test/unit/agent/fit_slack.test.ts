// A fit that accepts a slight excess: a process whose hot thread fits a one-CPU node and whose
// helper threads (GC, JIT) push its need a little over it, read on a loaded host where the idle
// CPU of its memory's node reads a little low, goes to that node with its threads (nothing
// copied), not to a node its own use makes look free with all of its memory moved there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideOne } from '../../../src/policy/agent/decide.js';
import type { Placement } from '../../../src/policy/agent/types.js';
import { nodes, opts, proc } from './build.js';

const ALL4 = [0, 1, 2, 3];
const four = (idle: number[]) =>
  nodes(4, {
    cpusPer: 1,
    freeGiB: 2,
    idle,
    distances: [
      [10, 16, 22, 28],
      [16, 10, 16, 22],
      [22, 16, 10, 16],
      [28, 22, 16, 10],
    ],
  });

/** One hot thread and ten helpers, all running on node 0; its 48 MiB on node 2. */
const nodeLike = (helperCpu: number) =>
  proc({
    pid: 300,
    mem: { 2: 48 },
    cpusPermitted: ALL4,
    cpu: {},
    threadUse: [
      { tid: 300, cpu: 1, node: 0 },
      ...Array.from({ length: 10 }, (_, i) => ({ tid: 301 + i, cpu: helperCpu, node: 0 })),
    ],
  });

const placement = (helperCpu: number, idle: number[], granularity: 'threads' | 'process'): Placement => {
  const d = decideOne(nodeLike(helperCpu), four(idle), opts({ granularity }));
  assert.equal(d.kind, 'move', JSON.stringify(d));
  return d.kind === 'move' ? d.placement : assert.fail();
};

describe('fit: a slight excess of helper threads', () => {
  for (const granularity of ['threads', 'process'] as const)
    for (const [helperCpu, idle2] of [
      [0.012, 0.8],
      [0.02, 0.78],
      [0.03, 0.85],
    ] as const)
      it(`${granularity}: need ${1 + 10 * helperCpu}, its memory's node ${idle2} idle: threads there, nothing moved`, () => {
        const pl = placement(helperCpu, [0, 1, idle2, 1], granularity);
        assert.deepEqual(pl.nodes, [2], JSON.stringify(pl));
        assert.equal(pl.moveBytes, 0);
      });

  it('a node busy with another process (idle 0.3) is no fit: the memory moves to an idle node', () => {
    const pl = placement(0.012, [0, 1, 0.3, 1], 'process');
    assert.notDeepEqual(pl.nodes, [2], JSON.stringify(pl));
    assert.ok(pl.moveBytes > 0);
  });
});
