// The agent under memory pressure (issue 28 item 3): at its cgroup's memory.max the kernel
// cannot allocate the buffer to read a process's numa_maps (seq_file, charged to the reader's
// cgroup) and the read fails with ENOMEM. The process is left alone that pass and read again
// at the next; the pass goes on for the others; the log says when it starts and ends; nothing
// is half changed. A journal write that fails with ENOMEM stops the agent, which puts back what
// it changed. The read faults are made in node:fs itself (test/helpers/read_faults.ts).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { runAgent } from '../../../src/agent/run.js';
import { createSampler } from '../../../src/discover/process_sampler.js';
import { withFileFaults } from '../../helpers/file_faults.js';
import { withReadFaults } from '../../helpers/read_faults.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
let lines: string[];
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
  lines = [];
});

const numaMapsOf = (pid: number) => (path: string) =>
  path.endsWith(join('proc', String(pid), 'numa_maps')) ? 'ENOMEM' : undefined;

describe('the agent under memory pressure', () => {
  it("ENOMEM reading one process's numa_maps: that one is left alone this pass, the others are placed, the log says it once, and it is placed once memory is back", async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    m.add(busy(201, 'other', 400, 3, 2));
    const pass = new AgentPass(
      { ...DEFAULT_AGENT, stateDir },
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
    m.tick(5, [1, 3]);
    const under = await withReadFaults(numaMapsOf(200), () => pass.run(5000));
    assert.deepEqual(
      under.map((d) => [d.pid, d.kind]),
      [[201, 'move']],
    );
    assert.ok(!m.calls.some((c) => / 200 /.test(c)), m.calls.join('\n'));
    m.tick(5, [1, 3]);
    await withReadFaults(numaMapsOf(200), () => pass.run(10_000));
    assert.equal(
      lines.filter((l) => l.startsWith('memory pressure')).join('\n'),
      'memory pressure: the kernel could not allocate memory to read the numa_maps of 1 process (ENOMEM); left alone until it can',
    );
    m.tick(5, [1]);
    const after = await pass.run(15_000);
    assert.deepEqual(
      after.filter((d) => d.pid === 200).map((d) => d.kind),
      ['move'],
      lines.join('\n'),
    );
    assert.equal(lines.filter((l) => l === 'memory pressure over: every numa_maps read again').length, 1);
  });

  it('the sampler counts such a process as not read for want of memory, not as gone', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const s = createSampler(m.root, { pids: [200] });
    const got = await withReadFaults(numaMapsOf(200), async () => s.sample(0));
    assert.deepEqual(got, []);
    assert.deepEqual([s.counts.noMemory, s.counts.vanished], [1, 0]);
  });

  it('ENOMEM on a journal write: the agent stops, puts back what it changed, and says why', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    let armed = false;
    const signals = new EventEmitter();
    let t = 0;
    const r = await withFileFaults(
      (c) => (armed && c.op === 'write' && c.path.includes(`${stateDir}/journal/`) ? 'ENOMEM' : undefined),
      () =>
        runAgent(
          { ...DEFAULT_AGENT, stateDir, intervalMs: 20 },
          {
            root: m.root,
            sys: openSystem(m.root, { isRoot: true }),
            ops: m.ops,
            log: (l) => void lines.push(l),
            signals,
            pageSize: 4096,
            now: () => t,
            selfPid: 99999,
            onReady: () => {
              armed = true;
              t = 5000;
              m.tick(5, [1]);
            },
          },
        ).then(
          (code) => ({ code, error: null as Error | null }),
          (error: Error) => ({ code: null, error }),
        ),
    );
    assert.equal(r.code, null);
    assert.match(
      r.error!.message,
      /^agent stopped: cannot write the journal: .*write failed: cannot allocate memory \(ENOMEM: memory pressure\); it puts back what it changed before it exits$/,
    );
    assert.deepEqual(m.procs.get(200)!.threads[0]!.cpus, [0, 1, 2, 3], 'the affinity is back');
    assert.equal(fs.readFileSync(join(m.dir, 'proc/sys/kernel/numa_balancing'), 'utf8').trim(), '1');
  });
});
