// Several busy processes that together fill more than one node (numad's own job): each ends on
// the node that holds its memory, none moved, none starves a node, even when a loaded host's
// ticks read each one's hot thread above one CPU and its helper threads add a little more.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import type { Decision } from '../../../src/policy/agent/types.js';
import { busy, eachWithFakeMachine, type FakeMachine, fakeClock } from './tree.js';

describe('fill: three busy processes, memory on nodes 1, 2 and 3, all running on node 0', () => {
  let m: FakeMachine;
  let stateDir: string;
  eachWithFakeMachine((machine, d) => {
    m = machine;
    stateDir = d;
  });

  /** A Node-like process: one hot thread read at `hot` CPUs, ten helpers at `helper` each, all on CPU 0. */
  const nodeLike = (pid: number, memNode: number, hot: number, helper: number) =>
    busy(pid, `w${memNode}`, 48, memNode, 0, {
      threads: Array.from({ length: 11 }, (_, i) => ({
        tid: pid + i,
        ticks: 0,
        cpu: 0,
        start: 1000 + pid,
        cpus: [0, 1, 2, 3],
        busy: i === 0 ? hot : helper,
      })),
    });

  const decide = async (hot: number, helper: number): Promise<Decision[]> => {
    for (const [pid, node] of [
      [200, 1],
      [300, 2],
      [400, 3],
    ] as const)
      m.add(nodeLike(pid, node, hot, helper));
    const pass = new AgentPass(
      { ...DEFAULT_AGENT, stateDir, advise: true },
      {
        root: m.root,
        ops: m.ops,
        journal: new AgentJournal(stateDir, new Date(0)),
        log: () => {},
        selfPid: 99999,
        pageSize: 4096,
        clock: fakeClock(),
      },
    );
    await pass.run(0);
    m.tick(1);
    return pass.run(1000);
  };

  for (const [hot, helper] of [
    [1.1, 0.02],
    [1.3, 0.03],
  ] as const)
    it(`hot thread at ${hot} CPUs, ten helpers at ${helper}: each to its memory's node, no memory moved`, async () => {
      const ds = await decide(hot, helper);
      const moves = ds.filter((d) => d.kind === 'move');
      assert.equal(moves.length, 3, JSON.stringify(ds));
      for (const d of moves) {
        if (d.kind !== 'move') continue;
        const memNode = Number(d.comm.slice(1));
        assert.deepEqual(d.placement.nodes, [memNode], `${d.comm}: ${JSON.stringify(d.placement)}`);
        assert.equal(d.placement.moveBytes, 0, `${d.comm}: nothing to move`);
        // Each thread capped at the window: the hot one at one CPU, the helpers' share on top.
        assert.ok(Math.abs((d.cpu ?? 0) - (1 + 10 * helper)) < 0.02, `${d.comm}: CPU need ${d.cpu}`);
      }
    });
});
