// A copy judged over a short window waits one window more (policy/agent/decide.ts,
// unconfirmedCopy): a second after a process appears or drops its binding, the scheduler is still
// placing its threads, and the node holding its memory can read busy for a moment; its threads
// going to the memory costs nothing to undo, a copy of its memory is the costly action.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { newBudget } from '../../../src/policy/agent/budget.js';
import { decide } from '../../../src/policy/agent/decide.js';
import { quietPass } from '../../../src/policy/agent/interval.js';
import type { Decision, NodeView, ProcessView } from '../../../src/policy/agent/types.js';
import { nodes, opts, proc } from './build.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

/** The process as judged over a window of `seconds` (the builder's is 5 s). */
const over = (p: ProcessView, seconds: number): ProcessView => ({
  ...p,
  windowSeconds: seconds,
  cpuNodes: Object.fromEntries(Object.entries(p.cpuNodes).map(([n, s]) => [n, (s * seconds) / p.windowSeconds])),
});

const decideWith = (ns: NodeView[], p: ProcessView, decidedBefore: number[]) =>
  decide(
    {
      nodes: ns,
      processes: [p],
      budget: newBudget(0, { mbps: 0, burstSeconds: 5 }),
      intervalSeconds: 5,
      confirm: { decidedBefore: new Set(decidedBefore), minWindowSeconds: 2.5 },
    },
    opts({ maxMigrateMbps: 0 }),
  ).decisions[0]!;

// Memory on node 1, whose CPUs are busy; running on node 0: its memory is to be copied to node 0.
const ns = nodes(2, { idle: [2, 0] });
const misplaced = proc({ pid: 7, mem: { 1: 512 }, cpu: { 0: 1 }, cpusPermitted: [0, 1, 2, 3] });

describe('a copy judged over a short window', () => {
  it('waits: skipped as confirming, saying what it would copy and over how long it was judged', () => {
    const d = decideWith(ns, over(misplaced, 1), []);
    assert.equal(d.kind, 'skip');
    assert.equal((d as Extract<Decision, { kind: 'skip' }>).skip, 'confirming');
    assert.match(d.reason, /512 MiB to copy to node 0, judged over 1\.0 s/);
    // Not a quiet pass: the interval does not stretch while a copy waits for its second window.
    assert.equal(quietPass([d], 0), false);
  });

  it('is made when the pass before decided it too', () => {
    const d = decideWith(ns, over(misplaced, 1), [7]);
    assert.equal(d.kind, 'move');
    assert.equal((d as Extract<Decision, { kind: 'move' }>).placement.moveBytes, 512 * 1024 * 1024);
  });

  it('judged over a whole interval, is made at once', () => {
    assert.equal(decideWith(ns, over(misplaced, 5), []).kind, 'move');
  });

  it('threads going to the memory (nothing copied) never wait', () => {
    const d = decideWith(nodes(2, { idle: [2, 2] }), over(misplaced, 1), []);
    assert.equal(d.kind, 'move');
    assert.deepEqual((d as Extract<Decision, { kind: 'move' }>).placement.nodes, [1]);
    assert.equal((d as Extract<Decision, { kind: 'move' }>).placement.moveBytes, 0);
  });
});

describe('the agent pass: a copy over a short window, then the next', () => {
  let m: FakeMachine;
  let stateDir: string;
  eachWithFakeMachine((machine, d) => {
    m = machine;
    stateDir = d;
  });

  const passes = async (once: boolean) => {
    // Memory on node 1, node 1 kept busy, the process on CPU 0: its memory is copied to node 0.
    m.add(busy(200, 'spin', 40, 1, 0));
    const lines: string[] = [];
    const pass = new AgentPass(
      { ...DEFAULT_AGENT, stateDir, once },
      {
        root: m.root,
        ops: m.ops,
        journal: new AgentJournal(stateDir, new Date(0)),
        log: (l) => void lines.push(l),
        selfPid: 99999,
        pageSize: 4096,
        clock: fakeClock(),
      },
    );
    await pass.run(0);
    m.tick(1, [1]);
    const first = await pass.run(1000);
    const short = pass.wantsShortWindow;
    m.tick(1, [1]);
    const second = await pass.run(2000);
    return { first, second, short, lines, calls: m.calls };
  };

  it('the first 1 s window: nothing moved, the next window comes after 1 s; the second: copied', async () => {
    const r = await passes(false);
    assert.deepEqual(
      r.first.map((d) => (d.kind === 'skip' ? d.skip : d.kind)),
      ['confirming'],
    );
    assert.equal(r.short, true, 'the second window is a short one');
    assert.deepEqual(r.calls, ['setAffinity 200 0', 'movePages 200 -> 0'], r.lines.join('\n'));
    assert.equal(r.second[0]?.kind, 'move');
  });

  it('--once (no second window): copied at once', async () => {
    const r = await passes(true);
    assert.equal(r.first[0]?.kind, 'move', r.lines.join('\n'));
  });
});
