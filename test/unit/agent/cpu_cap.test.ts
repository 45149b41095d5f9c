// A process's CPU need is never read above its thread count: a one-thread process whose ticks
// over the window read 1.8 CPUs (a guest on a loaded host) is one CPU's need, placed on one
// node with its memory, not split over two.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

describe('CPU need, capped by threads', () => {
  let m: FakeMachine;
  let stateDir: string;
  eachWithFakeMachine((machine, d) => {
    m = machine;
    stateDir = d;
  });

  const decideFor = async (threads: { busy: number }[]) => {
    m.add(
      busy(200, 'spin', 400, 1, 0, {
        threads: threads.map((t, i) => ({ tid: 200 + i, ticks: 0, cpu: 0, start: 1200, cpus: [0, 1, 2, 3], ...t })),
      }),
    );
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
    m.tick(1, [0]);
    const [d] = await pass.run(1000);
    assert.ok(d !== undefined && d.kind === 'move', `a move: ${JSON.stringify(d)}`);
    return d;
  };

  it('one thread read at 1.8 CPUs: one CPU, one node (its memory node)', async () => {
    const d = await decideFor([{ busy: 1.8 }]);
    assert.equal(d.cpu, 1);
    assert.deepEqual(d.kind === 'move' ? d.placement.nodes : null, [1]);
  });

  it('two threads read at 1.8 CPUs each: the need stays theirs (3.6 over 2 threads is 2)', async () => {
    const d = await decideFor([{ busy: 1.8 }, { busy: 1.8 }]);
    assert.equal(d.cpu, 2);
  });
});
