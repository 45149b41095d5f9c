// The candidates of a pass placed as one whole fit (policy/agent/fit.ts): busy processes that
// are themselves the load on each other's memory nodes go to their memory, nothing copied; what
// really does not fit keeps the old answers; a process already local stays and is fitted around.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBudget } from '../../../src/policy/agent/budget.js';
import { decide } from '../../../src/policy/agent/decide.js';
import type { Decision, NodeView, PolicyOptions, ProcessView } from '../../../src/policy/agent/types.js';
import { nodes, opts, proc } from './build.js';

const run = (ns: NodeView[], ps: ProcessView[], o: Partial<PolicyOptions> = {}) =>
  decide(
    { nodes: ns, processes: ps, budget: newBudget(0, { mbps: 0, burstSeconds: 5 }), intervalSeconds: 5 },
    opts({ maxMigrateMbps: 0, ...o }),
  ).decisions;

const byPid = (ds: Decision[], pid: number) => ds.find((d) => d.pid === pid) ?? assert.fail(`no decision for ${pid}`);

/** A busy one-CPU process: memory on `mem` (MiB per node), running on node `on`. */
const busy = (pid: number, mem: Record<number, number>, on: number, cpusPermitted: number[]) =>
  proc({ pid, comm: `p${pid}`, mem, cpu: { [on]: 1 }, cpusPermitted });

/** Each process's CPU charged where the decisions put it: no node over its CPUs (plus slack). */
function noNodeStarved(ns: NodeView[], ps: ProcessView[], ds: Decision[]): void {
  const load = new Map(ns.map((n) => [n.id, n.cpus.length - n.idleCpus]));
  for (const p of ps)
    for (const [n, s] of Object.entries(p.cpuNodes)) load.set(Number(n), load.get(Number(n))! - s / 5);
  for (const d of ds) {
    const p = ps.find((x) => x.pid === d.pid)!;
    const where =
      d.kind === 'move' && d.placement.cpus !== null ? d.placement.nodes : Object.keys(p.cpuNodes).map(Number);
    for (const n of where) load.set(n, load.get(n)! + p.cpu / where.length);
  }
  for (const n of ns)
    assert.ok(load.get(n.id)! <= n.cpus.length + 0.5, `node ${n.id} loaded ${load.get(n.id)}: ${JSON.stringify(ds)}`);
}

interface Case {
  name: string;
  nodes: NodeView[];
  /** [pid, memory node, node it runs on, MiB]. */
  procs: [number, number, number, number][];
}

// Each one-CPU node busy with the process whose memory is elsewhere: every memory node reads busy.
const ROTATIONS: Case[] = [
  {
    name: '2 nodes of 2 CPUs: two processes with memory on node 0 run on node 1, one with memory on node 1 runs on node 0',
    nodes: nodes(2, { cpusPer: 2, freeGiB: 2, idle: [1, 0] }),
    procs: [
      [10, 0, 1, 300],
      [11, 0, 1, 200],
      [12, 1, 0, 250],
    ],
  },
  {
    name: '3 nodes of 1 CPU: memory on 0, 1, 2, each running on the next node',
    nodes: nodes(3, { cpusPer: 1, freeGiB: 2, idle: [0, 0, 0] }),
    procs: [
      [10, 0, 1, 300],
      [11, 1, 2, 200],
      [12, 2, 0, 150],
    ],
  },
  {
    name: '4 nodes of 1 CPU (the lab guest): memory on 1, 2, 3, each running on the next, node 0 idle',
    nodes: nodes(4, { cpusPer: 1, freeGiB: 1, idle: [1, 0, 0, 0] }),
    procs: [
      [10, 1, 2, 140],
      [11, 2, 3, 140],
      [12, 3, 1, 140],
    ],
  },
  {
    name: '4 nodes of 1 CPU: memory on 3, 1, 2, running on 1, 2, 3 (the other rotation), node 0 idle',
    nodes: nodes(4, { cpusPer: 1, freeGiB: 1, idle: [1, 0, 0, 0] }),
    procs: [
      [10, 3, 1, 100],
      [11, 1, 2, 200],
      [12, 2, 3, 300],
    ],
  },
];

describe("whole fit: busy processes that are each other's load", () => {
  for (const c of ROTATIONS)
    it(`${c.name}: threads go to the memory, nothing copied`, () => {
      const all = c.nodes.flatMap((n) => n.cpus);
      const ps = c.procs.map(([pid, mem, on, mib]) => busy(pid, { [mem]: mib }, on, all));
      const ds = run(c.nodes, ps);
      for (const [pid, mem] of c.procs) {
        const d = byPid(ds, pid);
        assert.equal(d.kind, 'move', JSON.stringify(d));
        if (d.kind !== 'move') continue;
        assert.deepEqual(d.placement.nodes, [mem], `${pid}: ${d.reason}`);
        assert.equal(d.placement.moveBytes, 0, `${pid}: nothing copied (${d.reason})`);
        assert.match(d.reason, /whole fit: the CPU of p\d+ \(\d+\)/, 'the log says whose CPU was counted as room');
      }
      noNodeStarved(c.nodes, ps, ds);
    });

  it('--tune pages: threads never move, so nothing is freed: the memory goes to where each runs', () => {
    const ns = nodes(3, { cpusPer: 1, freeGiB: 2, idle: [0, 0, 0] });
    const ps = [
      busy(10, { 0: 300 }, 1, [0, 1, 2]),
      busy(11, { 1: 200 }, 2, [0, 1, 2]),
      busy(12, { 2: 150 }, 0, [0, 1, 2]),
    ];
    for (const d of run(ns, ps, { tune: 'pages' })) {
      assert.equal(d.kind, 'move', JSON.stringify(d));
      if (d.kind === 'move') assert.equal(d.placement.cpus, null);
    }
  });
});

describe('whole fit: what really does not fit', () => {
  it('three one-CPU processes with memory on one one-CPU node: the largest goes there, the others keep their node and have their memory copied to it', () => {
    const ns = nodes(4, { cpusPer: 1, freeGiB: 2, idle: [0, 1, 0, 0] });
    const all = [0, 1, 2, 3];
    const ps = [busy(10, { 1: 200 }, 0, all), busy(11, { 1: 400 }, 2, all), busy(12, { 1: 300 }, 3, all)];
    const ds = run(ns, ps);
    const target = (pid: number) => {
      const d = byPid(ds, pid);
      return d.kind === 'move' ? d.placement : assert.fail(JSON.stringify(d));
    };
    assert.deepEqual(target(11).nodes, [1]);
    assert.equal(target(11).moveBytes, 0);
    assert.deepEqual(target(12).nodes, [3], 'the next largest keeps its own node');
    assert.deepEqual(target(10).nodes, [0]);
    assert.ok(target(10).moveBytes > 0 && target(12).moveBytes > 0, 'their memory is copied to them');
    const d10 = byPid(ds, 10);
    assert.match(
      d10.reason,
      /node 1, holding what is copied, had 0\.00 idle CPUs for its 1\.00/,
      'the log says why its memory is copied',
    );
    noNodeStarved(ns, ps, ds);
  });

  it('every node full of other work: no-room, and the process stays where it runs', () => {
    // Node 1 (its memory) busy with a process that is no candidate; node 0 (where it runs) too small to receive it.
    const ns = nodes(2, { cpusPer: 1, freeGiB: 2, idle: [0, 0] }).map((n) => (n.id === 0 ? { ...n, freeBytes: 0 } : n));
    const ds = run(ns, [busy(10, { 1: 300 }, 0, [0, 1])], { tune: 'pages' });
    assert.equal(ds[0]!.kind, 'skip', JSON.stringify(ds));
    if (ds[0]!.kind === 'skip') assert.equal(ds[0]!.skip, 'no-room');
  });

  it('larger than its memory node with a freed neighbour: its threads go to most of its memory, nothing copied (partial)', () => {
    const ns = nodes(3, { cpusPer: 1, freeGiB: 0.1, idle: [0, 0, 0] });
    const all = [0, 1, 2];
    // 10: 600 MiB over nodes 1 and 2 (more than a node), running on node 0; 11: memory on 0, running on node 1.
    const ps = [busy(10, { 1: 400, 2: 200 }, 0, all), busy(11, { 0: 100 }, 1, all)];
    const ds = run(ns, ps);
    const d10 = byPid(ds, 10);
    const d11 = byPid(ds, 11);
    assert.ok(d10.kind === 'move' && d10.placement.moveBytes === 0, JSON.stringify(d10));
    if (d10.kind === 'move') assert.deepEqual(d10.placement.nodes, [1], d10.reason);
    assert.ok(d11.kind === 'move' && d11.placement.moveBytes === 0, JSON.stringify(d11));
    if (d11.kind === 'move') assert.deepEqual(d11.placement.nodes, [0], d11.reason);
    noNodeStarved(ns, ps, ds);
  });
});

describe('whole fit: no thrash', () => {
  it('a process already local and bound stays put, and the others fit around it', () => {
    const ns = nodes(4, { cpusPer: 1, freeGiB: 2, idle: [1, 0, 0, 1] });
    const all = [0, 1, 2, 3];
    // 10: local on node 1 (bound there by the agent); 11: memory on node 1 too, running on node 2, larger.
    const local = proc({
      pid: 10,
      comm: 'p10',
      mem: { 1: 100 },
      cpu: { 1: 1 },
      cpusPermitted: all,
      cpusAllowed: [1],
      agentCpus: [1],
    });
    const ps = [local, busy(11, { 1: 500 }, 2, all)];
    const ds = run(ns, ps);
    const d10 = byPid(ds, 10);
    assert.equal(d10.kind, 'skip', JSON.stringify(d10));
    if (d10.kind === 'skip') assert.equal(d10.skip, 'local');
    const d11 = byPid(ds, 11);
    assert.ok(
      d11.kind === 'move' && !d11.placement.nodes.includes(1),
      `node 1 is the local one's: ${JSON.stringify(d11)}`,
    );
    noNodeStarved(ns, ps, ds);
  });

  it('a freed process that stays after all (--min-gain) is counted where it runs, and the fit is made again around it', () => {
    const ns = nodes(4, { cpusPer: 1, freeGiB: 2, idle: [1, 0, 0, 1] });
    const all = [0, 1, 2, 3];
    // 10: 75% local on node 1, its best gain under --min-gain 0.3: it stays. 11: larger, memory on node 1, running on node 2.
    const ps = [busy(10, { 1: 300, 3: 100 }, 1, all), busy(11, { 1: 900 }, 2, all)];
    const ds = run(ns, ps, { minGain: 0.3 });
    const d10 = byPid(ds, 10);
    assert.equal(d10.kind, 'skip', JSON.stringify(d10));
    const d11 = byPid(ds, 11);
    assert.ok(
      d11.kind === 'move' && !d11.placement.nodes.includes(1),
      `node 1 is still the other's: ${JSON.stringify(d11)}`,
    );
    noNodeStarved(ns, ps, ds);
  });
});
