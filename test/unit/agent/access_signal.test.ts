// The agent's use of access locality (policy/agent/access_signal.ts, issue 26 item 3): where the
// NUMA-balancing faults and the pages disagree, the accesses decide, and the decision log says
// both. A table on the pure policy, then the pass on the fake machine (sched files written).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import type { AccessLocality } from '../../../src/model/access_locality.js';
import { accessGain, MIN_ACCESS_FAULTS } from '../../../src/policy/agent/access_signal.js';
import { decideOne } from '../../../src/policy/agent/decide.js';
import type { Decision, ProcessView } from '../../../src/policy/agent/types.js';
import { MiB, nodes, opts, proc } from './build.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

/** Faults by node (one thread on node `on`). */
function faults(on: number, byNode: Record<number, number>): AccessLocality {
  const total = Object.values(byNode).reduce((a, b) => a + b, 0);
  return {
    kind: 'ok',
    local: (byNode[on] ?? 0) / total,
    faults: total,
    nodes: Object.fromEntries(Object.entries(byNode).map(([n, f]) => [n, f])),
    source: 'numa-faults',
  };
}

const two = () => nodes(2, { cpusPer: 2, idle: [1, 1] });
const on0 = (mem: Record<number, number>, access?: AccessLocality): ProcessView => ({
  ...proc({ pid: 300, comm: 'db', mem, cpu: { 0: 1 }, cpusPermitted: [0, 1, 2, 3], cpusAllowed: [0, 1] }),
  ...(access ? { access } : {}),
});

const CASES: {
  name: string;
  p: ProcessView;
  want: { kind: Decision['kind']; skip?: string; moveBytes?: number; reason: RegExp };
  /** What the pages alone decide (the same process without access). */
  pagesAlone: { kind: Decision['kind']; skip?: string };
}[] = [
  {
    name: 'pages 97% local, accesses 30% local: the 12 MiB on node 1 are the hot ones, moved',
    p: on0({ 0: 388, 1: 12 }, faults(0, { 0: 120, 1: 280 })),
    want: {
      kind: 'move',
      moveBytes: 12 * MiB,
      reason:
        /^accesses 30% -> 100% local \(400 recent NUMA faults\) though its pages are 97% local \(the remote pages are the ones it uses\): locality 97% -> 100%: .*12 MiB from node 1 to 0/,
    },
    pagesAlone: { kind: 'skip', skip: 'local' },
  },
  {
    name: 'pages 20% local, accesses 97% local: the remote 320 MiB are cold, left alone (not followed there either)',
    p: on0({ 0: 80, 1: 320 }, faults(0, { 0: 970, 1: 30 })),
    want: {
      kind: 'skip',
      skip: 'cold-memory',
      reason:
        /^its pages are 20% local but its accesses 97% local \(1000 recent NUMA faults\): the remote memory is cold; the best placement \(node 1, 80 MiB to move\) raises accesses by 3% < --min-gain 10%$/,
    },
    pagesAlone: { kind: 'move' },
  },
  {
    name: 'pages and accesses both remote: moved, the line saying both',
    p: on0({ 0: 80, 1: 320 }, faults(0, { 0: 200, 1: 800 })),
    want: {
      kind: 'move',
      moveBytes: 80 * MiB,
      reason: /locality 20% -> 100%: .*; accesses 20% -> 100% local \(1000 recent NUMA faults\)$/,
    },
    pagesAlone: { kind: 'move' },
  },
  {
    name: 'both local: local, the line saying both',
    p: on0({ 0: 400 }, faults(0, { 0: 500 })),
    want: {
      kind: 'skip',
      skip: 'local',
      reason: /^locality 100% on node 0; accesses 100% local \(500 recent NUMA faults\)$/,
    },
    pagesAlone: { kind: 'skip', skip: 'local' },
  },
  {
    name: `under ${MIN_ACCESS_FAULTS} faults the accesses are noise: the pages decide`,
    p: on0({ 0: 80, 1: 320 }, faults(0, { 0: 20, 1: 1 })),
    want: { kind: 'move', moveBytes: 80 * MiB, reason: /^locality 20% -> 100%: [^;]*$/ },
    pagesAlone: { kind: 'move' },
  },
];

describe('access locality as a signal to the placement', () => {
  for (const c of CASES)
    it(c.name, () => {
      const o = opts({ granularity: 'process' });
      const d = decideOne(c.p, two(), o);
      assert.equal(d.kind, c.want.kind, d.reason);
      if (d.kind === 'skip') assert.equal(d.skip, c.want.skip);
      if (d.kind === 'move' && c.want.moveBytes !== undefined) assert.equal(d.placement.moveBytes, c.want.moveBytes);
      assert.match(d.reason, c.want.reason);
      const { access: _, ...alone } = c.p;
      const a = decideOne(alone, two(), o);
      assert.equal(a.kind, c.pagesAlone.kind, a.reason);
      if (a.kind === 'skip') assert.equal(a.skip, c.pagesAlone.skip);
    });

  it('accessGain: faults on the nodes it will run on and the nodes moved there are local after', () => {
    const p = on0({ 0: 80, 1: 320 }, faults(0, { 0: 100, 1: 300, 2: 100 }));
    const g = accessGain(p, {
      nodes: [0],
      cpus: [0, 1],
      moveFrom: [1],
      moveBytes: 1,
      localityNow: 0,
      localityAfter: 1,
    });
    assert.deepEqual(g, { now: 0.2, after: 0.8, faults: 500, source: 'numa-faults' });
    assert.equal(
      accessGain(
        { ...p, access: { kind: 'unavailable', why: 'x' } },
        { nodes: [0], cpus: null, moveFrom: [], moveBytes: 0, localityNow: 0, localityAfter: 0 },
      ),
      null,
    );
  });
});

let m: FakeMachine;
let stateDir: string;
let lines: string[];
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
  lines = [];
});

async function twoPasses() {
  const pass = new AgentPass(
    { ...DEFAULT_AGENT, stateDir, granularity: 'process' },
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
  m.tick(5, [1]);
  return pass.run(5000);
}

describe('agent pass: access locality from /proc/PID/task/TID/sched', () => {
  it('pages mostly remote but its threads fault on local memory: left alone as cold-memory, logged with both', async () => {
    m.add(busy(200, 'cache', 400, 1, 0, { pages: { 0: 80 * 256, 1: 320 * 256 }, faults: { 0: 970, 1: 30 } }));
    const d = await twoPasses();
    assert.deepEqual(m.calls, []);
    assert.deepEqual(
      d.map((x) => (x.kind === 'skip' ? x.skip : x.kind)),
      ['cold-memory'],
    );
    assert.match(lines.join('\n'), /cold-memory pid 200 \(cache\): its pages are 20% local but its accesses 97% local/);
  });

  it('the same process without fault statistics (kernel.numa_balancing 0) is moved on its pages', async () => {
    m.add(busy(200, 'cache', 400, 1, 0, { pages: { 0: 80 * 256, 1: 320 * 256 }, faults: { 0: 970, 1: 30 } }));
    m.setNumaBalancing(0);
    const d = await twoPasses();
    assert.deepEqual(
      d.map((x) => x.kind),
      ['move'],
    );
    assert.doesNotMatch(lines.join('\n'), /accesses/);
  });
});
