// --granularity threads as tables: how threads are ranked hot and cold, and where a process
// whose hot thread fits one node (but not its helpers too) is placed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { afterMove, decideOne } from '../../../src/policy/agent/decide.js';
import { rankThreads } from '../../../src/policy/agent/threads.js';
import type { Decision, Placement } from '../../../src/policy/agent/types.js';
import { nodes, opts, proc } from './build.js';

const ALL4 = [0, 1, 2, 3];
const four = (o: Parameters<typeof nodes>[1] = {}) =>
  nodes(4, {
    cpusPer: 1,
    freeGiB: 2,
    distances: [
      [10, 16, 22, 28],
      [16, 10, 16, 22],
      [22, 16, 10, 16],
      [28, 22, 16, 10],
    ],
    ...o,
  });
const use = (cpus: number[]) => cpus.map((cpu, i) => ({ tid: 100 + i, seconds: cpu * 5, node: 0 }));

describe('rankThreads', () => {
  const cases: { name: string; cpus: number[]; hot: number[]; hotCpu: number; coldCpu: number }[] = [
    { name: 'one hot thread and two helpers', cpus: [1, 0.3, 0.3], hot: [100], hotCpu: 1, coldCpu: 0.6 },
    {
      name: 'equal workers stay together (each at least half as busy as the busiest)',
      cpus: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      hot: [100, 101, 102, 103, 104, 105, 106, 107],
      hotCpu: 4,
      coldCpu: 0,
    },
    {
      name: 'threads at least half as busy as the busiest',
      cpus: [0.5, 0.3, 0.1, 0.1],
      hot: [100, 101],
      hotCpu: 0.8,
      coldCpu: 0.2,
    },
    { name: 'two hot threads and a small one', cpus: [0.9, 0.8, 0.1], hot: [100, 101], hotCpu: 1.7, coldCpu: 0.1 },
    { name: 'busiest first whatever the tid order', cpus: [0.1, 1], hot: [101], hotCpu: 1, coldCpu: 0.1 },
    {
      name: 'one thread that stands out (a third or more of its CPU) among many small ones',
      cpus: [0.4, 0.15, 0.15, 0.15, 0.15],
      hot: [100],
      hotCpu: 0.4,
      coldCpu: 0.6,
    },
    {
      name: 'no thread stands out (the busiest under a third of its CPU): every busy thread is hot',
      cpus: [0.3, 0.14, 0.14, 0.14, 0.14, 0.14, 0],
      hot: [100, 101, 102, 103, 104, 105],
      hotCpu: 1,
      coldCpu: 0,
    },
    { name: 'one thread: hot, nothing cold', cpus: [1], hot: [100], hotCpu: 1, coldCpu: 0 },
    { name: 'an idle process: nothing hot', cpus: [0, 0], hot: [], hotCpu: 0, coldCpu: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = rankThreads(use(c.cpus), 5);
      assert.deepEqual(
        r.hot.map((t) => t.tid),
        c.hot,
      );
      assert.equal(r.hot.length + r.cold.length, c.cpus.length);
      assert.ok(
        Math.abs(r.hotCpu - c.hotCpu) < 1e-9 && Math.abs(r.coldCpu - c.coldCpu) < 1e-9,
        `${r.hotCpu} / ${r.coldCpu}`,
      );
    });
  }
});

const moved = (d: Decision): Placement => {
  assert.equal(d.kind, 'move', JSON.stringify(d));
  return d.kind === 'move' ? d.placement : assert.fail();
};

// The case: a hot thread (1 CPU) whose helpers (0.6 CPU) push the process over one
// 1-CPU node; its memory (400 MiB) on node 1, everything running on node 0.
const helpers = (o: { cpusAllowed?: number[]; node?: number; coldNode?: number } = {}) =>
  proc({
    pid: 200,
    mem: { 1: 400 },
    cpusPermitted: ALL4,
    cpusAllowed: o.cpusAllowed ?? ALL4,
    cpu: {},
    threadUse: [
      { tid: 200, cpu: 1, node: o.node ?? 0 },
      { tid: 201, cpu: 0.3, node: o.coldNode ?? 0 },
      { tid: 202, cpu: 0.3, node: o.coldNode ?? 0 },
    ],
  });

describe('placement by threads', () => {
  it('process granularity: the process needs two nodes and its hot thread sees half its memory remote', () => {
    const pl = moved(decideOne(helpers(), four(), opts({ granularity: 'process' })));
    assert.equal(pl.nodes.length, 2);
    assert.equal(pl.split, undefined);
    assert.ok(pl.localityAfter <= 0.5 + 1e-9, String(pl.localityAfter));
  });

  it('thread granularity, node 1 idle: the hot thread goes to its memory on node 1, the helpers to the nearest node, nothing is copied', () => {
    const pl = moved(decideOne(helpers(), four(), opts({ granularity: 'threads' })));
    assert.deepEqual([pl.nodes, pl.cpus, pl.moveBytes], [[1], [1], 0]);
    assert.deepEqual(pl.split?.hotTids, [200]);
    assert.ok(
      pl.split!.coldNodes[0] === 0 || pl.split!.coldNodes[0] === 2,
      `cold on node ${pl.split!.coldNodes}: one of node 1's neighbours`,
    );
    assert.equal(pl.split!.hotLocalityAfter, 1);
    assert.ok(
      Math.abs(pl.localityAfter - 1 / 1.6) < 1e-9,
      `CPU-weighted: the hot thread's 1 of 1.6 CPUs local (${pl.localityAfter})`,
    );
  });

  it('thread granularity, the helpers running on node 1 (its idle CPU is what they leave): the hot thread still goes to node 1, the helpers leave it', () => {
    const pl = moved(
      decideOne(helpers({ coldNode: 1 }), four({ idle: [1, 0.4, 1, 1] }), opts({ granularity: 'threads' })),
    );
    assert.deepEqual([pl.nodes, pl.moveBytes], [[1], 0]);
    assert.deepEqual(pl.split?.hotTids, [200]);
    assert.ok(
      pl.split!.coldNodes[0] === 0 || pl.split!.coldNodes[0] === 2,
      `cold on node ${pl.split!.coldNodes}: one of node 1's neighbours`,
    );
  });

  it("thread granularity, helpers that use almost as much as the hot thread: the split is judged by the hot thread's gain (50% -> 100%), not the CPU-weighted one (under --min-gain)", () => {
    // As a whole-process move to nodes 0,1 leaves it: memory half on each, the hot thread on node 0, two helpers (0.45 CPU each) on node 1.
    const p = proc({
      pid: 200,
      mem: { 0: 200, 1: 200 },
      cpusPermitted: ALL4,
      cpusAllowed: [0, 1],
      cpu: {},
      threadUse: [
        { tid: 200, cpu: 1, node: 0 },
        { tid: 201, cpu: 0.45, node: 1 },
        { tid: 202, cpu: 0.45, node: 1 },
      ],
    });
    const pl = moved(decideOne(p, four({ idle: [0, 0.1, 1, 1] }), opts({ granularity: 'threads' })));
    assert.deepEqual(pl.split?.hotTids, [200]);
    assert.deepEqual([pl.split!.hotLocalityNow, pl.split!.hotLocalityAfter], [0.5, 1]);
    assert.ok(
      pl.localityAfter - pl.localityNow < 0.1 && pl.localityAfter >= pl.localityNow,
      `CPU-weighted gain ${pl.localityAfter - pl.localityNow}: under --min-gain, not a loss`,
    );
  });

  it('thread granularity, node 1 busy: the memory moves with the hot thread to a neighbour of node 1, the helpers to the next node (its neighbour, not busy node 1)', () => {
    const pl = moved(decideOne(helpers(), four({ idle: [1, 0, 1, 1] }), opts({ granularity: 'threads' })));
    assert.deepEqual(pl.moveFrom, [1]);
    // Node 2 wins over node 0: from node 2 the helpers' nearest free node (3) is 16 away, from node 0 (2) 22.
    assert.deepEqual([pl.nodes, pl.split?.coldNodes], [[2], [3]]);
    assert.equal(pl.split!.hotLocalityAfter, 1);
  });

  it('once placed (hot thread bound to node 1, helpers on node 0) it is local: nothing more to do', () => {
    const d = decideOne(helpers({ cpusAllowed: [1], node: 1, coldNode: 0 }), four(), opts({ granularity: 'threads' }));
    assert.equal(d.kind, 'skip', JSON.stringify(d));
    if (d.kind === 'skip') assert.equal(d.skip, 'local');
    assert.match(d.reason, /hot threads 100% local on node 1, the others on node 0/);
  });

  it('a process that fits one node whole is not split', () => {
    const pl = moved(decideOne(helpers(), nodes(4, { cpusPer: 2, freeGiB: 2 }), opts({ granularity: 'threads' })));
    assert.equal(pl.split, undefined);
    assert.equal(pl.nodes.length, 1);
  });

  it('--tune pages never splits (threads stay where they are)', () => {
    const d = decideOne(helpers(), four(), opts({ granularity: 'threads', tune: 'pages' }));
    if (d.kind === 'move') assert.equal(d.placement.split, undefined);
  });

  it("the machine after a split move: the hot CPU leaves the hot node's idle CPUs, the helpers' leaves the cold node's", () => {
    const p = helpers();
    const n = four();
    const pl = moved(decideOne(p, n, opts({ granularity: 'threads' })));
    const after = afterMove(n, p, pl);
    const idle = (id: number) => after.find((x) => x.id === id)!.idleCpus;
    assert.equal(idle(1), 0);
    assert.ok(
      Math.abs(idle(pl.split!.coldNodes[0]!) - (1 - 0.6)) < 1e-9,
      `node ${pl.split!.coldNodes[0]}: ${idle(pl.split!.coldNodes[0]!)}`,
    );
  });
});
