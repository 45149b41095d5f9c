// The agent's pass and life on a fake machine (tree.ts): what it does, logs and journals, and
// that it puts everything back (signals, a predecessor killed with SIGKILL).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listChangeSets } from '../../../src/actuate/journal.js';
import { openSystem } from '../../../src/actuate/system.js';
import { DEFAULT_AGENT, type AgentConfig } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import { RECHECK_PASSES } from '../../../src/agent/pass_candidates.js';
import { restoreLeftovers } from '../../../src/agent/restore.js';
import { type RunDeps, runAgent, watchOffLine } from '../../../src/agent/run.js';
import { locality } from '../../../src/policy/locality.js';
import { createSampler } from '../../../src/discover/process_sampler.js';
import { withFileFaults } from '../../helpers/file_faults.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

let m: FakeMachine;
let stateDir: string;
let lines: string[];
eachWithFakeMachine((machine, dir) => {
  m = machine;
  stateDir = dir;
  lines = [];
});

const cfg = (o: Partial<AgentConfig> = {}): AgentConfig => ({ ...DEFAULT_AGENT, stateDir, ...o });

function agentPass(
  o: Partial<AgentConfig> = {},
  journal: AgentJournal | null = new AgentJournal(stateDir, new Date(0)),
  clock = fakeClock(),
) {
  const pass = new AgentPass(cfg(o), {
    root: m.root,
    ops: m.ops,
    journal,
    log: (l) => void lines.push(l),
    selfPid: 99999,
    pageSize: 4096,
    clock,
  });
  return { pass, journal };
}

/** Baseline at t=0, then `seconds` of running, then a pass. */
async function twoPasses(pass: AgentPass, seconds = 5, busyCpus: number[] = []) {
  await pass.run(0);
  m.tick(seconds, busyCpus);
  return pass.run(seconds * 1000);
}

function localityOf(pid: number): number | null {
  const s = createSampler(m.root, { pids: [pid] });
  s.sample(0);
  m.tick(1);
  return locality(s.sample(1000)[0]!);
}

describe('agent pass', () => {
  it("misplaced, its memory's node busy: memory moves to the threads, threads are bound there; locality 100%", async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const { pass, journal } = agentPass();
    const d = await twoPasses(pass, 5, [1]);
    assert.equal(d.length, 1);
    assert.deepEqual(m.calls, ['setAffinity 200 0', 'movePages 200 -> 0']);
    assert.match(
      lines.join('\n'),
      /moved pid 200 \(spin\): locality 0% -> 100%: threads to node 0, 400 MiB from node 1 to 0/,
    );
    assert.equal(localityOf(200), 1);
    assert.deepEqual(
      journal!.changeSet.threads!.map((t) => [t.tid, t.old, t.value, t.state]),
      [[200, '0-3', '0', 'written']],
    );
  });

  /**
   * Pauses the mover made moving a misplaced process's 40 MiB with `busyCpus` kept busy (10 ms of
   * CPU a batch; no MB/s budget, whose pauses are another matter).
   */
  async function copyPauses(busyCpus: number[], o: Partial<AgentConfig> = {}): Promise<number> {
    m.add(busy(200, 'spin', 40, 1, 0));
    const clock = fakeClock({ cpuPerCall: 10 });
    const { pass } = agentPass({ maxMigrateMbps: 0, ...o }, undefined, clock);
    await twoPasses(pass, 5, busyCpus);
    assert.equal(m.calls.at(-1), 'movePages 200 -> 0', lines.join('\n'));
    return clock.sleeps.filter((ms) => ms > 0).length;
  }

  // --max-migrate-cpu auto, the default: node 1 busy (the memory is copied to the threads on CPU 0).
  it('--max-migrate-cpu auto: with CPUs 2 and 3 idle the copy has a whole CPU (no pause)', async () => {
    assert.equal(await copyPauses([1]), 0);
    assert.equal(DEFAULT_AGENT.maxMigrateCpu, 'auto');
  });

  it('--max-migrate-cpu auto: with every other CPU busy too, the copy shares one, paced to half of it (pauses)', async () => {
    assert.ok((await copyPauses([1, 2, 3])) > 0);
  });

  it('--max-migrate-cpu 0.5 given: paced on an idle machine too', async () => {
    assert.ok((await copyPauses([1], { maxMigrateCpu: 0.5 })) > 0);
  });

  it("the agent's mover runs on the CPUs the process was given while it moves the pages, and is put back after", async () => {
    m.add(busy(200, 'spin', 40, 1, 0));
    m.add(busy(99999, 'numakit', 40, 2, 2));
    const during = new Set<string>();
    const ops = {
      ...m.ops,
      movePages: (...a: Parameters<typeof m.ops.movePages>) => {
        during.add(m.ops.getAffinity(99999).join(','));
        return m.ops.movePages(...a);
      },
    };
    const pass = new AgentPass(cfg(), {
      root: m.root,
      ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    });
    await twoPasses(pass, 5, [1]);
    assert.deepEqual([...during], ['0']);
    assert.deepEqual(m.ops.getAffinity(99999), [0, 1, 2, 3]);
  });

  it("misplaced, its memory's node idle: threads go to the memory, nothing migrates", async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    await twoPasses(agentPass().pass);
    assert.deepEqual(m.calls, ['setAffinity 200 1']);
    assert.equal(localityOf(200), 1);
  });

  it('program text on other nodes is not its memory: a process local in anonymous memory is only bound', async () => {
    m.add(busy(200, 'spin', 100, 1, 1, { filePages: { 0: 50_000 } }));
    await twoPasses(agentPass().pass);
    assert.deepEqual(m.calls, ['setAffinity 200 1']);
    assert.match(lines.join('\n'), /bind its threads to node 1/);
  });

  it('--granularity threads: the hot thread goes to its memory, the helpers to another node; each thread journaled with its own new affinity', async () => {
    const th = (tid: number, busy: number) => ({ tid, ticks: 0, cpu: 0, start: 1000 + tid, cpus: [0, 1, 2, 3], busy });
    m.add(busy(200, 'java', 400, 1, 0, { threads: [th(200, 1), th(201, 0.3), th(202, 0.3)] }));
    const { pass, journal } = agentPass({ granularity: 'threads' });
    await twoPasses(pass);
    const cpus = m.procs.get(200)!.threads.map((t) => t.cpus.join(','));
    assert.equal(cpus[0], '1', m.calls.join('\n'));
    assert.ok(cpus[1] === cpus[2] && cpus[1] !== '1' && cpus[1]!.split(',').length === 1, cpus.join(' / '));
    assert.match(
      lines.join('\n'),
      /moved pid 200 \(java\): locality 0% -> 63% \(hot threads 0% -> 100%\): 1 hot thread \(63% of its CPU\) to node 1, the others to node \d/,
    );
    assert.deepEqual(
      journal!.changeSet.threads!.map((t) => [t.tid, t.value]),
      [
        [200, '1'],
        [201, cpus[1]],
        [202, cpus[1]],
      ],
    );
    m.tick(5);
    assert.equal((await pass.run(10_000))[0], undefined, 'cooling down');
  });

  it('--granularity process: the same process is bound whole to two nodes', async () => {
    const th = (tid: number, busy: number) => ({ tid, ticks: 0, cpu: 0, start: 1000 + tid, cpus: [0, 1, 2, 3], busy });
    m.add(busy(200, 'java', 400, 1, 0, { threads: [th(200, 1), th(201, 0.3), th(202, 0.3)] }));
    await twoPasses(agentPass({ granularity: 'process' }).pass);
    const cpus = m.procs.get(200)!.threads.map((t) => t.cpus.join(','));
    assert.ok(cpus.every((c) => c === cpus[0]) && cpus[0]!.split(',').length === 2, cpus.join(' / '));
  });

  it('--advise changes nothing and says what it would do', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    await twoPasses(agentPass({ advise: true }, null).pass);
    assert.deepEqual(m.calls, []);
    assert.match(lines.join('\n'), /would move pid 200 \(spin\)/);
  });

  it('left alone: small, user-pinned (unless --override-pins), excluded; notable skips logged once', async () => {
    m.add(busy(201, 'tiny', 8, 1, 0));
    m.add(busy(202, 'pinned', 400, 1, 0, { threads: [{ tid: 202, ticks: 0, cpu: 0, start: 5, cpus: [0] }] }));
    m.add(busy(203, 'batchjob', 400, 1, 2));
    m.add(busy(204, 'bound', 400, 1, 3, { policy: 'bind:1' }));
    const { pass } = agentPass({ exclude: [/^batch/] });
    await twoPasses(pass);
    m.tick(5);
    await pass.run(10_000);
    assert.deepEqual(m.calls, []);
    const text = lines.join('\n');
    assert.doesNotMatch(text, /tiny/);
    assert.equal(text.match(/pinned-cpus pid 202/g)?.length, 1, text);
    assert.equal(text.match(/excluded pid 203/g)?.length, 1, text);
    assert.match(text, /pinned-memory pid 204 \(bound\): memory policy set by the user \(bind:1\)/);
  });

  it('--override-pins manages a user-pinned process', async () => {
    m.add(busy(202, 'pinned', 400, 1, 0, { threads: [{ tid: 202, ticks: 0, cpu: 0, start: 5, cpus: [0] }] }));
    await twoPasses(agentPass({ overridePins: true }).pass);
    assert.deepEqual(m.calls, ['setAffinity 202 1']);
  });

  it('a process that exits in the middle of its migration costs one log line', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    m.failNext.movePages = 'ESRCH';
    const { pass } = agentPass();
    await twoPasses(pass, 5, [1]);
    assert.match(lines.join('\n'), /gone pid 200 \(spin\).*the process exited while migrating its pages/);
    m.exit(200);
    m.tick(5);
    assert.deepEqual(await pass.run(10_000), []);
  });

  it('EPERM on affinity: logged as failed, cooled down (not retried next pass), no exception', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    m.failNext.setAffinity = 'EPERM';
    const { pass } = agentPass();
    await twoPasses(pass);
    assert.match(lines.join('\n'), /failed pid 200 \(spin\).*fake EPERM/);
    m.tick(5);
    await pass.run(10_000);
    assert.equal(m.calls.length, 1);
  });

  it('competing: two processes sized for one node each end on different nodes', async () => {
    m.add(busy(300, 'a', 1000, 1, 0));
    m.add(busy(301, 'b', 900, 1, 0));
    await twoPasses(agentPass().pass);
    const cpus = [300, 301].map((pid) => m.procs.get(pid)!.threads[0]!.cpus.join(','));
    assert.notEqual(cpus[0], cpus[1], m.calls.join('\n'));
  });

  it('--log-format json: one object per decision', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    await twoPasses(agentPass({ logFormat: 'json' }).pass);
    const o = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.deepEqual(
      [o['pid'], o['outcome'], o['nodes'], o['localityNow'], o['localityAfter'], o['threads']],
      [200, 'moved', [1], 0, 1, 1],
    );
  });
});

describe('agent life: the interval', () => {
  /** The agent's first two sleeps (--interval 5 s), with what the machine holds from the start. */
  const firstSleeps = async (add: () => void) => {
    add();
    const signals = new EventEmitter();
    const sleeps: number[] = [];
    let t = 0;
    const done = runAgent(cfg({ intervalMs: 5000, advise: true, watchMs: 0 }), {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops: m.ops,
      log: (l) => void lines.push(l),
      signals,
      pageSize: 4096,
      selfPid: 99999,
      clock: fakeClock(),
      now: () => t,
      sleep: async (ms) => {
        sleeps.push(ms);
        t += ms;
        m.tick(ms / 1000);
        if (sleeps.length === 2) signals.emit('SIGTERM');
        await new Promise((r) => setImmediate(r));
      },
    });
    assert.equal(await done, 0);
    return sleeps;
  };

  it('the first window is short (1 s) when the first pass found a process to judge over it, --interval when it found none', async () => {
    assert.deepEqual(await firstSleeps(() => {}), [5000, 5000], 'nothing to judge: no pass a second later');
    assert.deepEqual(
      await firstSleeps(() => m.add(busy(200, 'spin', 400, 1, 0))),
      [1000, 5000],
      'a busy process at --min-rss: judged a second later',
    );
  });

  // The waits are the agent's own (a fake sleep that records them and moves a fake time), so the
  // sequence is exact whatever the host's load; timers.test.ts checks the real wait.
  it('nothing to do: the sleep grows by --interval up to --max-interval; a process to act on brings it back at once', async () => {
    const signals = new EventEmitter();
    const sleeps: number[] = [];
    let t = 0;
    let passes = 0;
    // The interval alone (no watch between passes: its looks would read the clock too).
    const done = runAgent(cfg({ intervalMs: 40, maxIntervalMs: 120, advise: true, watchMs: 0 }), {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops: m.ops,
      log: (l) => void lines.push(l),
      signals,
      pageSize: 4096,
      selfPid: 99999,
      clock: fakeClock(),
      now: () => {
        passes++;
        return t;
      },
      sleep: async (ms) => {
        sleeps.push(ms);
        t += ms;
        // The process starts in the wait before pass 5, its thread busy through it.
        if (sleeps.length === 5)
          m.add(
            busy(200, 'spin', 400, 1, 0, { threads: [{ tid: 200, ticks: 0, cpu: 0, start: 7, cpus: [0, 1, 2, 3] }] }),
          );
        m.tick(ms / 1000);
        if (sleeps.length === 8) signals.emit('SIGTERM');
        await new Promise((r) => setImmediate(r));
      },
    });
    assert.equal(await done, 0);
    // Passes 1-4 find nothing: the sleeps before passes 1-5 are 40 (the first window), 40, 80,
    // 120, 120. Pass 5 finds the process (and every pass after it advises its move): --interval.
    assert.deepEqual(sleeps, [40, 40, 80, 120, 120, 40, 40, 40], lines.join('\n'));
    assert.equal(passes, 8, 'the baseline and 7 passes: none after SIGTERM');
    assert.match(lines.join('\n'), /would move pid 200/);
  });
});

describe('agent life: the watch', () => {
  const life = async (events: (stop: (ms: number) => void) => RunDeps['events']) => {
    const signals = new EventEmitter();
    let t = 0;
    const stop = (ms: number) => {
      t += ms;
      signals.emit('SIGTERM');
    };
    const done = runAgent(cfg({ intervalMs: 40, advise: true }), {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops: m.ops,
      log: (l) => void lines.push(l),
      signals,
      pageSize: 4096,
      selfPid: 99999,
      clock: fakeClock(),
      events: events(stop),
      now: () => t,
      sleep: async (ms) => {
        t += ms;
        signals.emit('SIGTERM');
      },
    });
    return done;
  };

  it('without the process events (no CAP_NET_ADMIN) the watch is off and the log says why, once', async () => {
    assert.equal(
      await life(() => () => {
        throw new Error('bind(proc connector): Operation not permitted (EPERM)');
      }),
      0,
    );
    const off = lines.filter((l) => l.includes('the watch between passes is off'));
    assert.equal(off.length, 1, lines.join('\n'));
    assert.match(off[0]!, /EPERM.*CAP_NET_ADMIN/);
    // What the fallback costs, in the same line: the next pass (--max-interval at most) instead of --watch.
    assert.match(
      off[0]!,
      /falling back to the passes: a new process is seen up to \d+(\.\d)? s after it starts instead of about 1 s$/,
    );
    assert.equal(off[0]!.split('\n').length, 1);
  });

  it("the fallback's cost at the defaults: the next pass, up to 15 s, instead of about 1 s", () => {
    assert.match(watchOffLine(DEFAULT_AGENT, 'x'), / up to 15 s after it starts instead of about 1 s$/);
    assert.match(
      watchOffLine({ ...DEFAULT_AGENT, maxIntervalMs: 60_000, watchMs: 500 }, 'x'),
      / up to 60 s .* about 0.5 s$/,
    );
  });

  it('with them: waits on them between passes, and closes them at exit', async () => {
    const waits: number[] = [];
    let closed = 0;
    assert.equal(
      await life((stop) => () => ({
        wait: async (ms) => {
          waits.push(ms);
          stop(ms);
          return null;
        },
        collectFor: () => {},
        close: () => void closed++,
      })),
      0,
    );
    assert.ok(waits.length > 0, 'the sleep waited on the events');
    assert.equal(closed, 1);
    assert.ok(!lines.some((l) => l.includes('watch between passes is off')));
  });
});

describe('agent life: restore', () => {
  const knob = () => readFileSync(join(m.dir, 'proc/sys/kernel/numa_balancing'), 'utf8').trim();

  it('SIGTERM: numa_balancing and every thread affinity come back exactly', async () => {
    m.add(
      busy(200, 'spin', 400, 1, 0, {
        threads: [
          { tid: 200, ticks: 0, cpu: 0, start: 7, cpus: [0, 1, 2, 3] },
          { tid: 201, ticks: 0, cpu: 0, start: 8, cpus: [0, 1, 2, 3] },
        ],
      }),
    );
    const signals = new EventEmitter();
    let t = 0;
    const done = runAgent(cfg({ intervalMs: 20 }), {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops: m.ops,
      log: (l) => void lines.push(l),
      signals,
      pageSize: 4096,
      now: () => t,
      selfPid: 99999,
      clock: fakeClock(),
      onReady: () => {
        assert.equal(knob(), '0');
        t = 5000;
        m.tick(5);
      },
    });
    for (let i = 0; m.calls.length === 0; i++) {
      assert.ok(i < 1000, 'the agent never acted');
      await Promise.race([done, new Promise((r) => setTimeout(r, 5))]);
    }
    // Two busy threads need two CPUs: the nearest two nodes holding (or next to) its memory.
    const set = m.procs.get(200)!.threads.map((x) => x.cpus.join(','));
    assert.equal(set[0], set[1]);
    assert.ok(set[0] !== '0,1,2,3' && set[0]!.split(',').length === 2, set[0]);
    signals.emit('SIGTERM');
    assert.equal(await done, 0);
    assert.equal(knob(), '1');
    assert.deepEqual(
      m.procs.get(200)!.threads.map((x) => x.cpus),
      [
        [0, 1, 2, 3],
        [0, 1, 2, 3],
      ],
    );
    assert.equal(listChangeSets(stateDir)[0]!.status, 'rolled-back');
    assert.match(lines.at(-1)!, /exit: restored 2 thread affinities and \/proc\/sys\/kernel\/numa_balancing/);
  });

  it('SIGTERM in the middle of a page move: the move stops after its batch, is journaled as stopped, and everything is put back', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const signals = new EventEmitter();
    let t = 0;
    const collections: number[] = [];
    // The signal arrives while the 3rd batch is in the kernel.
    const ops = {
      ...m.ops,
      movePages: (...a: Parameters<typeof m.ops.movePages>) => {
        if (m.movePagesCalls === 4) signals.emit('SIGTERM');
        return m.ops.movePages(...a);
      },
    };
    const code = await runAgent(cfg({ intervalMs: 20 }), {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops,
      log: (l) => void lines.push(l),
      signals,
      pageSize: 4096,
      now: () => t,
      selfPid: 99999,
      clock: fakeClock(),
      heap: { afterPass: (at) => void collections.push(at) },
      onReady: () => {
        t = 5000;
        m.tick(5, [1]);
      },
    });
    assert.equal(code, 0);
    // The heap is paced after the baseline pass only: the stopped pass goes straight to the restore.
    assert.deepEqual(collections, [0]);
    const text = lines.join('\n');
    assert.match(text, /stopped pid 200 \(spin\).*stopped by a signal: \d+ MiB moved in .* of 400 MiB/, text);
    assert.match(lines.at(-1)!, /^exit: restored 1 thread affinity and .* \d+ ms after SIGTERM$/);
    const pages = m.procs.get(200)!.pages;
    assert.ok((pages[0] ?? 0) > 0 && (pages[1] ?? 0) > 0, `half way: ${JSON.stringify(pages)}`);
    assert.ok(m.movePagesCalls <= 6, `${m.movePagesCalls} move_pages calls: no batch after the signal's`);
    assert.deepEqual(m.procs.get(200)!.threads[0]!.cpus, [0, 1, 2, 3]);
    const cs = listChangeSets(stateDir)[0]!;
    assert.equal(cs.moves?.[0]?.state, 'stopped');
    assert.equal(cs.moves?.[0]?.movedBytes, (pages[0] ?? 0) * 4096);
  });

  it('SIGTERM in the middle of a page move: one journal write between the signal and the exit line (the restore), the move in it as stopped', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const signals = new EventEmitter();
    let t = 0;
    const events: string[] = [];
    const ops = {
      ...m.ops,
      movePages: (...a: Parameters<typeof m.ops.movePages>) => {
        if (m.movePagesCalls === 4) {
          signals.emit('SIGTERM');
          events.push('signal');
        }
        return m.ops.movePages(...a);
      },
    };
    const code = await withFileFaults(
      (c) => {
        if (c.op === 'rename' && c.path.includes(`${stateDir}/journal/`)) events.push('journal');
        return undefined;
      },
      () =>
        runAgent(cfg({ intervalMs: 20 }), {
          root: m.root,
          sys: openSystem(m.root, { isRoot: true }),
          ops,
          log: (l) => void (l.startsWith('exit:') && events.push('exit')),
          signals,
          pageSize: 4096,
          now: () => t,
          selfPid: 99999,
          clock: fakeClock(),
          onReady: () => {
            t = 5000;
            m.tick(5, [1]);
          },
        }),
      { noSync: true },
    );
    assert.equal(code, 0);
    assert.deepEqual(events.slice(events.indexOf('signal')), ['signal', 'journal', 'exit']);
    const cs = listChangeSets(stateDir)[0]!;
    assert.equal(cs.status, 'rolled-back');
    assert.equal(cs.moves?.[0]?.state, 'stopped');
    assert.ok((cs.moves?.[0]?.movedBytes ?? 0) > 0);
  });

  it('after a SIGKILL: restore puts back affinities and numa_balancing, and skips a thread id reused by another thread', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    m.add(busy(300, 'other', 400, 2, 3));
    const journal = new AgentJournal(stateDir, new Date(0));
    const sys = openSystem(m.root, { isRoot: true });
    journal.setSysctl(sys, 'kernel.numa_balancing', '0', 'test');
    const { pass } = agentPass({}, journal);
    await twoPasses(pass);
    assert.equal(knob(), '0');
    // The agent "dies": its pid is one that has exited. Then pid 300's thread 300 exits and its id is reused.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const cs = listChangeSets(stateDir)[0]!;
    writeFileSync(join(stateDir, 'journal', `${cs.id}.json`), JSON.stringify({ ...cs, pid: dead }));
    m.procs.get(300)!.threads[0]!.start = 424242;
    const r = restoreLeftovers(sys, { stateDir, ops: m.ops, log: (l) => void lines.push(l) });
    assert.equal(r.length, 1);
    assert.deepEqual([r[0]!.threads, r[0]!.gone, r[0]!.failures], [1, 1, []]);
    assert.equal(knob(), '1');
    assert.deepEqual(m.procs.get(200)!.threads[0]!.cpus, [0, 1, 2, 3]);
    assert.deepEqual(m.procs.get(300)!.threads[0]!.cpus, [2], 'the reused id is not touched');
    assert.deepEqual(restoreLeftovers(sys, { stateDir, ops: m.ops }), [], 'a second restore has nothing to do');
  });

  it('after a SIGKILL in the middle of a page move: restore says how far the move got and marks it interrupted', () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const journal = new AgentJournal(stateDir, new Date(0));
    journal.moveStarted(
      { pid: 200, start: 1200, comm: 'spin', from: [1], to: [0], plannedBytes: 400 * 1048576 },
      new Date(1000),
    );
    journal.moveUpdate(200, 100 * 1048576, 'moving', new Date(1500));
    assert.equal(
      listChangeSets(stateDir)[0]!.moves![0]!.movedBytes,
      0,
      'progress within a second of the last save is not an fsync',
    );
    journal.moveUpdate(200, 120 * 1048576, 'moving', new Date(2500));
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const cs = listChangeSets(stateDir)[0]!;
    writeFileSync(join(stateDir, 'journal', `${cs.id}.json`), JSON.stringify({ ...cs, pid: dead }));
    const r = restoreLeftovers(openSystem(m.root, { isRoot: true }), {
      stateDir,
      ops: m.ops,
      log: (l) => void lines.push(l),
    });
    assert.equal(r.length, 1);
    assert.match(
      lines.join('\n'),
      /pid 200 \(spin\): its move from node 1 to 0 was interrupted after 120 MiB of 400 MiB; the pages stay where they are/,
    );
    assert.equal(listChangeSets(stateDir)[0]!.moves![0]!.state, 'interrupted');
  });
});

describe('agent pass: what it reads', () => {
  it(`a process under --min-rss costs one read of its stat every ${RECHECK_PASSES} passes: its status, threads and numa_maps are never read`, async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    m.add(busy(300, 'tiny', 8, 1, 0));
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const pass = new AgentPass(cfg(), {
      root,
      ops: m.ops,
      journal: null,
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
    });
    const at: number[] = [];
    for (let i = 1; i <= 8; i++) {
      read.length = 0;
      await pass.run(i * 5000);
      if (read.includes('proc/300/stat')) at.push(i);
      assert.deepEqual(
        read.filter((r) => r.startsWith('proc/300/') && r !== 'proc/300/stat'),
        [],
      );
      if (i === 2) assert.ok(read.includes('proc/200/numa_maps') && read.includes('proc/200/task/200/stat'));
      m.tick(5);
    }
    assert.deepEqual(at, [1, 2, 4, 8], 'new at passes 1 and 2, then at its turns: (300 + pass) % 4 === 0');
  });

  it('a kernel thread costs one read of its stat, then none for 12 passes', async () => {
    m.add({ ...busy(2, 'kworker/0:1', 0, 0, 0), pages: {}, cmdline: '', kernel: true });
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const pass = new AgentPass(cfg(), {
      root,
      ops: m.ops,
      journal: null,
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
    });
    for (let i = 0; i < 14; i++) {
      await pass.run(i * 5000);
      m.tick(5);
    }
    assert.deepEqual(
      read.filter((r) => r.startsWith('proc/2/')),
      ['proc/2/stat', 'proc/2/stat'],
      'read at passes 1 and 13 (rechecked every 12 passes)',
    );
  });

  it('a process just under --min-cpu (a noisy reading) keeps its threads read: the pass it reads busy judges it', async () => {
    const p = busy(200, 'java', 400, 1, 0, {
      threads: [{ tid: 200, ticks: 0, cpu: 0, start: 1200, cpus: [0, 1, 2, 3], busy: 0.1 }],
    });
    m.add(p);
    const pass = new AgentPass(cfg(), {
      root: m.root,
      ops: m.ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    });
    assert.deepEqual(await twoPasses(pass), [], '0.1 CPUs: under --min-cpu');
    p.threads[0]!.busy = 1;
    m.tick(5);
    assert.equal((await pass.run(10_000))[0]?.kind, 'move');
  });

  it(`a large idle process costs one read of its stat every ${RECHECK_PASSES} passes once it is known idle; busy again, it is baselined at its turn then judged`, async () => {
    const p = busy(200, 'java', 400, 1, 0, {
      threads: [
        { tid: 200, ticks: 0, cpu: 0, start: 1200, cpus: [0, 1, 2, 3], busy: 0 },
        { tid: 201, ticks: 0, cpu: 0, start: 1201, cpus: [0, 1, 2, 3], busy: 0 },
      ],
    });
    m.add(p);
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const pass = new AgentPass(cfg(), {
      root,
      ops: m.ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    });
    await twoPasses(pass); // passes 1 and 2: known idle at pass 2 (its stat only)
    read.length = 0;
    m.tick(5);
    assert.deepEqual(await pass.run(10_000), []);
    assert.deepEqual(
      read.filter((r) => r.startsWith('proc/200/')),
      [],
      'idle at its last read, pass 3 is not its turn ((200 + pass) % 4): not read',
    );
    for (const t of p.threads) t.busy = 1;
    m.tick(5);
    assert.deepEqual(await pass.run(15_000), [], 'busy again, read at its turn (pass 4): baselined');
    assert.ok(read.includes('proc/200/task/200/stat'));
    assert.equal(pass.wantsShortWindow, true);
    m.tick(1);
    assert.equal((await pass.run(16_000))[0]?.kind, 'move');
  });

  it('a process cooling down (after a move) costs its stat only: its status, cmdline and threads are not read until the cooldown ends', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const journal = new AgentJournal(stateDir, new Date(0));
    const pass = new AgentPass(cfg({ cooldownMs: 30_000 }), {
      root,
      ops: m.ops,
      journal,
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    });
    assert.equal((await twoPasses(pass, 5, [1]))[0]?.kind, 'move');
    assert.match(lines.join('\n'), /moved pid 200/);
    read.length = 0;
    m.tick(5);
    await pass.run(10_000);
    assert.deepEqual(
      read.filter((r) => r.startsWith('proc/200/')),
      ['proc/200/stat'],
    );
    m.tick(30);
    read.length = 0;
    await pass.run(40_000); // cooled: read again (baselined: its threads last read before the cooldown)
    assert.ok(read.includes('proc/200/status') && read.includes('proc/200/task/200/stat'), read.join(' '));
  });

  it('an excluded process costs its status and cmdline: its threads are never read, and it is logged once', async () => {
    m.add(busy(200, 'spin', 400, 1, 0));
    m.add(busy(400, 'backup', 400, 1, 0));
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const pass = new AgentPass(cfg({ exclude: [/^backup$/] }), {
      root,
      ops: m.ops,
      journal: null,
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
    });
    await twoPasses(pass);
    m.tick(5);
    await pass.run(10_000);
    assert.deepEqual(
      read.filter((r) => r.startsWith('proc/400/task') || r === 'proc/400/numa_maps'),
      [],
    );
    assert.equal(lines.filter((l) => / excluded pid 400 /.test(l)).length, 1, lines.join('\n'));
    assert.ok(read.includes('proc/200/task/200/stat'));
  });

  it('a process unpinned since the last pass is baselined, and the pass asks for a short window before the next', async () => {
    const p = busy(200, 'spin', 400, 1, 0, { threads: [{ tid: 200, ticks: 0, cpu: 0, start: 1200, cpus: [0] }] });
    m.add(p);
    const { pass } = agentPass();
    await pass.run(0);
    m.tick(5);
    assert.deepEqual(await pass.run(5000), [], 'pinned by the user');
    assert.equal(pass.wantsShortWindow, false);
    p.threads[0]!.cpus = [0, 1, 2, 3];
    m.write();
    m.tick(5);
    assert.deepEqual(await pass.run(10_000), []);
    assert.equal(pass.wantsShortWindow, true);
    m.tick(1);
    assert.equal((await pass.run(11_000))[0]?.kind, 'move');
    assert.equal(pass.wantsShortWindow, false);
  });

  it("a process that grows past --min-rss is only baselined on that pass: its lifetime CPU is not one window's", async () => {
    const p = busy(200, 'spin', 8, 1, 0);
    m.add(p);
    m.tick(60); // an hour-old small process in spirit: 60 s of CPU before the agent starts
    const { pass } = agentPass();
    assert.deepEqual(await pass.run(0), []);
    m.tick(5);
    assert.deepEqual(await pass.run(5000), []);
    m.tick(5);
    p.pages = { 1: 400 * 256 };
    m.write();
    // Small at passes 1 and 2: read again at its turn, pass 4 ((200 + pass) % 4); then a window.
    for (const [i, at] of [2, 3].entries()) {
      assert.deepEqual(
        await pass.run(at * 5000),
        [],
        'no window yet: 65 s of CPU in a 5 s window would read as 13 CPUs',
      );
      assert.equal(pass.baselines, i === 1 ? 1 : 0);
      m.tick(5);
    }
    const d = await pass.run(20000);
    assert.equal(d.length, 1);
    assert.equal(d[0]!.kind, 'move', JSON.stringify(d[0]));
  });
});

describe('agent pass: machine reads', () => {
  it('with nothing to place and no metrics, a pass reads no node meminfo, numastat, cpulist or distance after the first', async () => {
    const read: string[] = [];
    const root = { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) };
    const pass = new AgentPass(cfg(), {
      root,
      ops: m.ops,
      journal: null,
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
    });
    await pass.run(0);
    read.length = 0;
    m.tick(5);
    await pass.run(5000);
    assert.deepEqual(
      read.filter((r) => /node\d+\/(meminfo|numastat|cpulist|distance)$/.test(r)),
      [],
    );
    assert.ok(read.includes('proc/stat'));
  });
});

describe('agent life: a pass that throws', () => {
  it('is logged in one line naming the pass and the error, counted, and the agent goes on', async () => {
    const signals = new EventEmitter();
    let t = 0;
    let failures = 0;
    let passes = 0;
    const metrics = {
      decision: () => undefined,
      moved: () => undefined,
      locality: () => undefined,
      putBackFailed: () => undefined,
      passFailed: () => void failures++,
      // Every pass after the baseline throws here, as a bug in a reader would.
      machine: () => {
        if (passes++ > 0) throw new TypeError('boom in a pass');
      },
    };
    const code = await runAgent(cfg({ intervalMs: 20, advise: true }), {
      root: m.root,
      sys: openSystem(m.root, { isRoot: true }),
      ops: m.ops,
      log: (l) => void lines.push(l),
      signals,
      pageSize: 4096,
      now: () => t,
      selfPid: 99999,
      clock: fakeClock(),
      metrics,
      sleep: async (ms) => {
        t += ms;
        if (passes === 3) signals.emit('SIGTERM');
      },
    });
    assert.equal(code, 0);
    assert.equal(failures, 2, lines.join('\n'));
    assert.deepEqual(
      lines.filter((l) => /failed/.test(l)),
      [
        'a pass failed: TypeError: boom in a pass (the agent goes on)',
        'a pass failed: TypeError: boom in a pass (the agent goes on)',
      ],
    );
  });
});
