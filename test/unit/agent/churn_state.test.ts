// What the agent keeps between passes under churn (issue 28): per-process state keyed on pid +
// start time (a reused pid is a new process: no inherited cooldown, its skips logged again),
// dropped once the process is gone; a removed cgroup's metric series dropped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT, type AgentConfig } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { startMetrics } from '../../../src/agent/metrics.js';
import type { AgentMetricsSink } from '../../../src/agent/metrics_sink.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { PerProcess } from '../../../src/agent/per_process.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
let lines: string[];
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
  lines = [];
});

function agentPass(o: Partial<AgentConfig> = {}, metrics?: AgentMetricsSink) {
  return new AgentPass(
    { ...DEFAULT_AGENT, stateDir, ...o },
    {
      root: m.root,
      ops: m.ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
      ...(metrics ? { metrics } : {}),
    },
  );
}

/** The process at `pid` exits and a new one (another start time) takes its pid. */
function reuse(pid: number, comm: string, memNode: number, cpu: number) {
  m.exit(pid);
  m.add(
    busy(pid, comm, 400, memNode, cpu, { threads: [{ tid: pid, ticks: 0, cpu, start: 777_000, cpus: [0, 1, 2, 3] }] }),
  );
}

describe('PerProcess', () => {
  it('a value is kept for the same pid and start time only, and retain drops the gone and the reused', () => {
    const p = new PerProcess<string>();
    p.set({ pid: 5, start: 100 }, 'a');
    p.set({ pid: 6, start: 200 }, 'b');
    p.set({ pid: 7, start: 300 }, 'c');
    assert.equal(p.get({ pid: 5, start: 100 }), 'a');
    assert.equal(p.get({ pid: 5, start: 101 }), undefined, 'another process with pid 5');
    p.retain((pid) => (pid === 5 ? 100 : pid === 6 ? 999 : null));
    assert.equal(p.size, 1);
    assert.equal(p.get({ pid: 5, start: 100 }), 'a');
  });
});

describe('agent pass: a reused pid is another process', () => {
  it('a new process that takes the pid of one cooling down is judged at once, not left alone for the old cooldown', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const pass = agentPass();
    await pass.run(0);
    m.tick(5, [1]);
    await pass.run(5000);
    assert.match(lines.join('\n'), /moved pid 200 \(spin\)/);
    reuse(200, 'other', 2, 3);
    m.tick(5, [2]);
    const d = await pass.run(10_000); // 5 s into the first one's 30 s cooldown
    assert.deepEqual(
      d.map((x) => [x.pid, x.kind, x.comm]),
      [[200, 'move', 'other']],
      lines.join('\n'),
    );
  });

  it("a new process with a reused pid has its skip logged, though the old one's same skip was", async () => {
    m.add(busy(203, 'batchjob', 400, 1, 2));
    const pass = agentPass({ exclude: [/^batch/] });
    await pass.run(0);
    m.tick(5);
    await pass.run(5000);
    reuse(203, 'batchjob', 1, 2);
    m.tick(5);
    await pass.run(10_000);
    assert.equal(lines.join('\n').match(/excluded pid 203/g)?.length, 2, lines.join('\n'));
  });
});

describe('agent pass: state of gone processes and cgroups is dropped', () => {
  it('after 40 processes came and went (moved, cooled down, logged), it keeps nothing of them', async () => {
    const pass = agentPass({ exclude: [/^batch/] });
    await pass.run(0);
    let t = 0;
    for (let i = 0; i < 20; i++) {
      m.add(busy(300 + i, 'spin', 400, 1, 0));
      m.add(busy(400 + i, 'batchjob', 400, 1, 2));
      m.tick(5, [1]);
      await pass.run((t += 5000));
      m.exit(300 + i);
      m.exit(400 + i);
    }
    assert.ok(lines.filter((l) => /moved pid 3\d\d/.test(l)).length >= 10, lines.join('\n'));
    assert.ok(pass.kept.cooldowns > 0 || pass.kept.logged > 0, 'it kept state of the processes alive');
    m.tick(5);
    await pass.run((t += 5000));
    assert.deepEqual(pass.kept, { cooldowns: 0, logged: 0 });
  });

  it("--unit cgroup --metrics: a removed cgroup's numakit_agent_cgroup_moved_bytes_total series is dropped; others stay", async () => {
    const metrics = await startMetrics('127.0.0.1:0', { root: m.root });
    try {
      const app = (pid: number, cpu: number) =>
        busy(pid, `app${pid}`, 60, 3, cpu, { threads: [{ tid: pid, ticks: 0, cpu, start: 1000 + pid, cpus: [1, 2] }] });
      m.add(app(200, 1));
      m.add(app(201, 2));
      m.addCgroup('/lab.slice/a.service', [200], [1, 2]);
      m.addCgroup('/lab.slice/b.service', [201], [1, 2]);
      const pass = agentPass({ unit: 'cgroup' }, metrics);
      await pass.run(0);
      m.tick(5);
      await pass.run(5000);
      const scrape = async () => (await fetch(`http://${metrics.address}/metrics`)).text();
      const series = (text: string) => text.match(/^numakit_agent_cgroup_moved_bytes_total\{.*$/gm) ?? [];
      const before = series(await scrape());
      assert.equal(before.length, 2, `${before.join('\n')}\n${lines.join('\n')}`);
      m.removeCgroup('/lab.slice/a.service');
      m.tick(5);
      await pass.run(10_000);
      const after = series(await scrape());
      assert.deepEqual(
        after.map((l) => l.replace(/ .*$/, '')),
        ['numakit_agent_cgroup_moved_bytes_total{cgroup="/lab.slice/b.service"}'],
      );
    } finally {
      await metrics.close();
    }
  });
});
