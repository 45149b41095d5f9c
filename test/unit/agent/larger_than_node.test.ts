// A process larger than a node: its memory cannot follow its threads to any one node, so its
// threads go to the memory (the node holding most of it), nothing copied, rather than being left
// where none of its memory is (`no-room`). Once there it is left alone: nothing moves back and forth.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { afterMove, decideOne } from '../../../src/policy/agent/decide.js';
import type { NodeView } from '../../../src/policy/agent/types.js';
import { nodes, opts, proc } from './build.js';

const ALL4 = [0, 1, 2, 3];
// Four one-CPU nodes with 384 MiB each, about 80 MiB of it free.
const four = (): NodeView[] =>
  nodes(4, {
    cpusPer: 1,
    freeGiB: 80 / 1024,
    distances: [
      [10, 16, 22, 28],
      [16, 10, 16, 22],
      [22, 16, 10, 16],
      [28, 22, 16, 10],
    ],
  });

const large = (runNode: number) =>
  proc({ pid: 500, mem: { 1: 300, 2: 200 }, cpusPermitted: ALL4, cpu: { [runNode]: 1 } });

describe('larger than a node', () => {
  it('500 MiB on nodes 1 and 2, running on node 0: threads to node 1 (most of its memory), nothing copied', () => {
    const d = decideOne(large(0), four(), opts());
    assert.equal(d.kind, 'move', JSON.stringify(d));
    if (d.kind !== 'move') return;
    assert.deepEqual(d.placement.nodes, [1]);
    assert.equal(d.placement.moveBytes, 0);
    assert.ok(d.placement.localityAfter >= 0.59, String(d.placement.localityAfter));
  });

  it('then, running on node 1: nothing more to do (no move back and forth)', () => {
    const first = decideOne(large(0), four(), opts());
    assert.equal(first.kind, 'move');
    if (first.kind !== 'move') return;
    const machine = afterMove(four(), large(0), first.placement);
    const again = decideOne({ ...large(1), cpusAllowed: [1] }, machine, opts());
    assert.notEqual(again.kind, 'move', JSON.stringify(again));
  });

  it('--tune pages: memory cannot move to where it runs: no-room, as before', () => {
    const d = decideOne(large(0), four(), opts({ tune: 'pages' }));
    assert.equal(d.kind === 'skip' ? d.skip : d.kind, 'no-room', JSON.stringify(d));
  });
});
