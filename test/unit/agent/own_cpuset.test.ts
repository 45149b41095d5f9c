// The agent inside a container limited to some CPUs (its cgroup's cpuset.cpus.effective, as the
// container sees it at the root of /sys/fs/cgroup): it places processes only on those CPUs and
// says so once. Processes there see "0::/" in /proc/PID/cgroup, so their own cgroup says
// nothing narrower; before, they were measured against every CPU of the machine, and a process
// whose affinity was the container's CPUs looked pinned by a user.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

const SELF = 99999;
let m: FakeMachine;
let stateDir: string;
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
});

/** The container: the agent and pid 200 in its root cgroup, whose cpuset is `cpus`. */
function container(cpus: string): void {
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(m.dir, rel)), { recursive: true });
    writeFileSync(join(m.dir, rel), text);
  };
  put('sys/fs/cgroup/cgroup.controllers', 'cpuset cpu memory pids\n');
  put('sys/fs/cgroup/cpuset.cpus.effective', `${cpus}\n`);
  for (const pid of [SELF, 200]) put(`proc/${pid}/cgroup`, '0::/\n');
}

async function twoPasses(): Promise<string[]> {
  const lines: string[] = [];
  const pass = new AgentPass(
    { ...DEFAULT_AGENT, stateDir },
    {
      root: m.root,
      ops: m.ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: SELF,
      pageSize: 4096,
      clock: fakeClock(),
    },
  );
  await pass.run(0);
  m.tick(5);
  await pass.run(5000);
  return lines;
}

describe("the agent within its own cgroup's cpuset", () => {
  it('places only on the CPUs the container allows, and logs them once', async () => {
    // 60 MiB on node 3, running on CPU 0 with the container's CPUs as its affinity (4 nodes x 1 CPU).
    m.add(busy(200, 'app', 60, 3, 0, { threads: [{ tid: 200, ticks: 0, cpu: 0, start: 1200, cpus: [0, 1] }] }));
    container('0-1');
    const lines = await twoPasses();
    assert.deepEqual(
      lines.filter((l) => l.includes('placing only')),
      ["placing only on CPUs 0-1 of 0-3: those the agent's cgroup / allows (/sys/fs/cgroup/cpuset.cpus.effective)"],
    );
    const cpus = m.procs.get(200)!.threads[0]!.cpus;
    assert.ok(
      cpus.every((c) => c === 0 || c === 1),
      `affinity ${cpus}: ${m.calls.join(' / ')}`,
    );
    const pages = m.procs.get(200)!.pages;
    assert.equal(
      (pages[0] ?? 0) + (pages[1] ?? 0),
      60 * 256,
      `memory moved next to the allowed CPUs: ${JSON.stringify(pages)}\n${lines.join('\n')}`,
    );
    assert.doesNotMatch(lines.join('\n'), /pinned/);
  });

  it('a cpuset of every CPU restricts nothing and logs nothing', async () => {
    m.add(busy(200, 'app', 60, 3, 0));
    container('0-3');
    const lines = await twoPasses();
    assert.ok(!lines.some((l) => l.includes('placing only')), lines.join('\n'));
    assert.ok(m.calls.length > 0, 'it still manages the process');
  });
});
