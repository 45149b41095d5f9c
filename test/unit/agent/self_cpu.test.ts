// The agent's own CPU over the window is no load to fit around (src/agent/self_cpu.ts): its pass
// ran on the node holding a process's memory, and that process's memory was copied away instead
// of its threads going to it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { busy, eachWithFakeMachine, type FakeMachine, fakeClock } from './tree.js';

const SELF = 4242;

describe("the agent's own CPU", () => {
  let m: FakeMachine;
  let stateDir: string;
  eachWithFakeMachine((machine, d) => {
    m = machine;
    stateDir = d;
  });

  const decide = async (selfBusy: number) => {
    // The agent itself: 0.7 CPU (its pass) on CPU 1, node 1; the process: memory on node 1, running on node 0.
    m.add(
      busy(SELF, 'numakit', 40, 0, 1, {
        threads: [{ tid: SELF, ticks: 0, cpu: 1, start: 1, cpus: [0, 1, 2, 3], busy: selfBusy }],
      }),
    );
    m.add(busy(200, 'work', 96, 1, 0));
    const pass = new AgentPass(
      { ...DEFAULT_AGENT, stateDir, advise: true },
      {
        root: m.root,
        ops: m.ops,
        journal: new AgentJournal(stateDir, new Date(0)),
        log: () => {},
        selfPid: SELF,
        pageSize: 4096,
        clock: fakeClock(),
      },
    );
    await pass.run(0);
    m.tick(1);
    const ds = await pass.run(1000);
    const d = ds.find((x) => x.pid === 200);
    return d?.kind === 'move' ? d : assert.fail(JSON.stringify(ds));
  };

  it('costs one read of its own stat a pass, none of its threads (idle, a pass is most of what the agent costs)', async () => {
    m.add(
      busy(SELF, 'numakit', 40, 0, 1, {
        threads: Array.from({ length: 11 }, (_, i) => ({
          tid: SELF + i,
          ticks: 0,
          cpu: 1,
          start: 1,
          cpus: [0, 1, 2, 3],
          busy: i === 0 ? 0.05 : 0,
        })),
      }),
    );
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const pass = new AgentPass(
      { ...DEFAULT_AGENT, stateDir, advise: true },
      { root, ops: m.ops, journal: null, log: () => {}, selfPid: SELF, pageSize: 4096, clock: fakeClock() },
    );
    for (let i = 0; i < 3; i++) {
      await pass.run(i * 5000);
      m.tick(5);
    }
    // Its stat: this read and the sampler's stage 1 (which then skips it); never its threads'.
    const own = read.filter((r) => r.startsWith(`proc/${SELF}/`));
    assert.deepEqual(
      own.filter((r) => r.includes('/task')),
      [],
    );
    assert.ok(own.filter((r) => r === `proc/${SELF}/stat`).length <= 2 * 3, own.join(' '));
  });

  it('is counted on the node it ran on: its pass started on node 2, then the scheduler moved it to node 1 for its work', async () => {
    m.add(
      busy(SELF, 'numakit', 40, 0, 2, {
        threads: [{ tid: SELF, ticks: 0, cpu: 2, start: 1, cpus: [0, 1, 2, 3], busy: 0.7 }],
      }),
    );
    m.add(busy(200, 'work', 96, 1, 0));
    const pass = new AgentPass(
      { ...DEFAULT_AGENT, stateDir, advise: true },
      { root: m.root, ops: m.ops, journal: null, log: () => {}, selfPid: SELF, pageSize: 4096, clock: fakeClock() },
    );
    await pass.run(0);
    // Its 0.7 CPU of the window ran on CPU 1 (node 1, where the process's memory is).
    m.procs.get(SELF)!.threads[0]!.cpu = 1;
    m.tick(1);
    const d = (await pass.run(1000)).find((x) => x.pid === 200);
    assert.ok(d?.kind === 'move', JSON.stringify(d));
    // Counted on node 2 (where the last pass ran), node 1 read 0.3 idle for the process's 1 CPU
    // and its memory was copied to node 0; counted on node 1, its threads go to the memory.
    assert.deepEqual(d.placement.nodes, [1], d.reason);
    assert.equal(d.placement.moveBytes, 0, d.reason);
  });

  it("counts as idle: the process's threads go to its memory's node, nothing copied", async () => {
    const d = await decide(0.7);
    assert.deepEqual(d.placement.nodes, [1], d.reason);
    assert.equal(d.placement.moveBytes, 0, d.reason);
  });
});
