// discover/process_sampler.ts, the one process sampler, on a fake machine (4 nodes x 1 CPU):
// each stage reads only for the processes the one before kept, its state is keyed on pid + start
// time (a reused pid is a new process; a gone one is forgotten), it counts what it could not read,
// and a capture without /proc/PID/stat (taken by an older numakit) is read from status.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createSampler, readDetails, sampleProcesses } from '../../../src/discover/process_sampler.js';
import { busy, eachWithFakeMachine, type FakeMachine } from '../agent/tree.js';

let m: FakeMachine;
eachWithFakeMachine((machine) => (m = machine));

/** A root that records every path read under proc/PID. */
function recording() {
  const read: string[] = [];
  return { read, root: { ...m.root, onAccess: (_k: string, rel: string) => void read.push(rel) } };
}

const MiB = 256; // pages

describe('process sampler: stages', () => {
  it('each stage reads only for the processes the one before kept: stat, status + cmdline, threads, numa_maps', () => {
    m.add(busy(200, 'small', 1, 0, 0));
    m.add(busy(300, 'excluded', 400, 0, 1));
    m.add(busy(400, 'idle', 400, 0, 2));
    m.add(busy(500, 'big', 400, 1, 3));
    const { read, root } = recording();
    const s = createSampler(root, {
      screen: { minRssBytes: 64 * MiB * 4096, pageSize: 4096, idleBelow: 0 },
      prescreen: (b) => b.status.name !== 'excluded',
      select: (b) => b.status.name !== 'idle',
    });
    const got = s.sample(0).map((p) => p.pid);
    assert.deepEqual(got, [500]);
    const of = (pid: number) =>
      read
        .filter((r) => r.startsWith(`proc/${pid}/`))
        .map((r) => r.replace(`proc/${pid}/`, '').replace(/task\/\d+/, 'task/T'));
    assert.deepEqual(of(200), ['stat'], 'under the size bar: its stat only');
    assert.deepEqual(of(300), ['stat', 'status', 'cmdline'], 'prescreened out: no threads read');
    assert.deepEqual(of(400), ['stat', 'status', 'cmdline', 'task', 'task/T/stat'], 'not selected: no numa_maps');
    assert.deepEqual(of(500), ['stat', 'status', 'cmdline', 'task', 'task/T/stat', 'numa_maps']);
    assert.equal(of(500).filter((f) => f === 'status').length, 1, 'status read once a pass');
  });

  it('a process that used no CPU since the last pass: its threads are not read again', () => {
    m.add(busy(200, 'spin', 400, 0, 0));
    const { read, root } = recording();
    const s = createSampler(root);
    s.sample(0);
    m.tick(1);
    s.sample(1000);
    m.write(); // nothing ran
    read.length = 0;
    const [p] = s.sample(2000);
    assert.deepEqual(p?.cpuNodes, {});
    assert.deepEqual(p?.lastNodes, [0], 'where its threads last ran, from the last reading');
    assert.ok(!read.some((r) => r.includes('/task/')), read.join(' '));
  });

  it('threadsLater: no thread read in the pass; withThreads gives what stage 3 in place gives, over the window', () => {
    m.add(busy(200, 'a', 400, 0, 1));
    m.add(
      busy(300, 'b', 100, 1, 2, {
        threads: [300, 301].map((tid, i) => ({ tid, cpu: 2 + i, ticks: 0, start: 0, cpus: [0, 1, 2, 3] })),
      }),
    );
    const { read, root } = recording();
    m.tick(2); // CPU before the window: not in it
    const eager = createSampler(m.root);
    const later = createSampler(root, { threadsLater: true });
    eager.sample(0);
    [...later.run({ nowMs: 0, threadsOnly: true })]; // a window's start: its threads are read
    m.tick(1);
    const want = eager.sample(1000);
    read.length = 0;
    const got = later.sample(1000);
    assert.deepEqual(
      read.filter((r) => r.includes('/task')),
      [],
      'no thread read in the pass',
    );
    assert.deepEqual(
      got.map((p) => [p.pid, p.cpuNodes, p.lastNodes]),
      want.map((p) => [p.pid, {}, []]),
    );
    assert.deepEqual(
      got.map((p) => later.withThreads(p)),
      want,
    );
    assert.deepEqual(read.filter((r) => r.includes('/task/')).length, 3, 'each thread read once, when asked');
  });

  it('largest first, and a pass stops where the caller says', () => {
    m.add(busy(200, 'a', 10, 0, 0));
    m.add(busy(300, 'b', 30, 0, 0));
    m.add(busy(400, 'c', 20, 0, 0));
    const s = createSampler(m.root, { pageSize: 4096 });
    const seen: number[] = [];
    for (const p of s.run({ nowMs: 0, largestFirst: { stop: (next) => next.bound < 15 * 2 ** 20 } })) seen.push(p.pid);
    assert.deepEqual(seen, [300, 400]);
  });
});

describe('process sampler: state between passes', () => {
  it('a reused pid is a new process: its CPU is its own lifetime, not a delta against the old one', () => {
    const old = busy(200, 'old', 400, 0, 0);
    old.threads[0]!.ticks = 5000;
    m.add(old);
    const s = createSampler(m.root);
    s.sample(0);
    m.exit(200);
    const reused = busy(200, 'new', 400, 0, 1, { threads: [{ tid: 200, ticks: 100, cpu: 1, start: 9999, cpus: [1] }] });
    m.add(reused);
    const [p] = s.sample(1000);
    assert.equal(p?.comm, 'new');
    assert.deepEqual(p?.cpuNodes, { '1': 1 }, 'its 100 ticks, whole: the old 5000 are not its baseline');
    assert.equal(s.baselines, 0);
  });

  it('state of a process that is gone is dropped', () => {
    for (const pid of [200, 300, 400]) m.add(busy(pid, 'p', 10, 0, 0));
    const s = createSampler(m.root);
    s.sample(0);
    assert.equal(s.tracked, 3);
    m.exit(300);
    m.exit(400);
    s.sample(1000);
    assert.equal(s.tracked, 1);
  });

  it('a pass counts what it could not read: a process listed but gone is vanished', () => {
    m.add(busy(200, 'p', 10, 0, 0));
    const s = createSampler(m.root, { pids: [200, 4242] });
    assert.deepEqual(
      s.sample(0).map((p) => p.pid),
      [200],
    );
    assert.deepEqual(s.unreadable, { permission: 0, hidden: 0, vanished: 1 });
    assert.equal(s.counts.scanned, 1);
    assert.equal(s.counts.mapped, 1);
  });

  it('a capture without /proc/PID/stat (an older numakit) is read from status', () => {
    m.add(busy(200, 'p', 10, 2, 0));
    rmSync(join(m.dir, 'proc/200/stat'));
    const root = { ...m.root, isReal: false };
    const [p] = createSampler(root).sample(0);
    assert.equal(p?.pid, 200);
    assert.equal(p?.memory.kind === 'ok' && p.memory.totalBytes, 10 * 2 ** 20);
  });
});

describe('process sampler: recheckEvery (the agent: a process stage 1 stopped is read at its turn)', () => {
  const EVERY = 4;
  const screen = { minRssBytes: 64 * MiB * 4096, pageSize: 4096, idleBelow: 0.05 };
  /** The passes (1-based) at which pid's stat was read, over `passes` passes a second apart. */
  function statReads(pids: number[], passes: number, between: (pass: number) => void = () => m.tick(1)) {
    const { read, root } = recording();
    const s = createSampler(root, { screen, recheckEvery: EVERY });
    const at = new Map<number, number[]>(pids.map((p) => [p, []]));
    for (let pass = 1; pass <= passes; pass++) {
      read.length = 0;
      s.sample(pass * 1000);
      for (const pid of pids) if (read.includes(`proc/${pid}/stat`)) at.get(pid)!.push(pass);
      between(pass);
    }
    return { at, s, read };
  }

  it('a small process is read at its first two passes, then once every EVERY passes, at its turn (pid + pass)', () => {
    m.add(busy(201, 'small', 1, 0, 0));
    m.add(busy(202, 'small', 1, 0, 1));
    const { at, s } = statReads([201, 202], 9);
    assert.deepEqual(at.get(201), [1, 2, 3, 7], 'passes 1 and 2 (new), then where (201 + pass) % 4 is 0');
    assert.deepEqual(at.get(202), [1, 2, 6]);
    assert.equal(s.counts.deferred, 2, 'the last pass (9) read neither');
    assert.equal(s.counts.scanned, 0);
  });

  it('a process past stage 1 is read every pass; without the option every process is', () => {
    m.add(busy(300, 'big', 400, 0, 0));
    m.add(busy(301, 'small', 1, 0, 1));
    assert.deepEqual(statReads([300], 6).at.get(300), [1, 2, 3, 4, 5, 6]);
    const { read, root } = recording();
    const s = createSampler(root, { screen });
    for (let pass = 1; pass <= 3; pass++) s.sample(pass * 1000);
    assert.equal(read.filter((r) => r === 'proc/301/stat').length, 3);
  });

  it('a process that grows past --min-rss is seen (status read) at most EVERY passes later, whichever pass it grows in', () => {
    for (let grow = 1; grow <= EVERY; grow++) {
      m.add(busy(400, 'grows', 1, 0, 0));
      const { read, root } = recording();
      const s = createSampler(root, { screen, recheckEvery: EVERY });
      let seenAt = 0;
      for (let pass = 1; pass <= grow + EVERY && seenAt === 0; pass++) {
        if (pass === grow + 1) {
          m.procs.get(400)!.pages = { 0: 400 * MiB };
          m.write();
        }
        read.length = 0;
        s.sample(pass * 1000);
        if (read.includes('proc/400/status')) seenAt = pass;
        m.tick(1);
      }
      assert.ok(seenAt > grow && seenAt <= grow + EVERY, `grown after pass ${grow}: seen at pass ${seenAt}`);
      m.exit(400);
    }
  });

  it('a process read as gone while its pid is still listed: the next one with that pid is read as new, not at its turn', () => {
    m.add(busy(208, 'small', 1, 0, 0));
    const saved = new Map<string, string>();
    const { at } = statReads([208], 8, (pass) => {
      m.tick(1);
      if (pass === 3) {
        // Gone at its turn (pass 4), its directory still listed (a reused pid's old stat: ESRCH).
        for (const f of ['stat', 'status']) {
          const path = join(m.dir, 'proc/208', f);
          saved.set(path, readFileSync(path, 'utf8'));
          rmSync(path);
        }
      }
      if (pass === 4) for (const [path, text] of saved) writeFileSync(path, text);
    });
    assert.deepEqual(at.get(208), [1, 2, 4, 5, 6, 8], 'gone at 4: read as new at 5 and 6, then its turn (8)');
  });

  it('a new pid is read at the first two passes that list it (just started, it may not have grown yet)', () => {
    m.add(busy(500, 'small', 1, 0, 0));
    const { at } = statReads([500, 501], 10, (pass) => {
      m.tick(1);
      if (pass === 4) m.add(busy(501, 'late', 1, 0, 1));
    });
    assert.deepEqual(at.get(501), [5, 6, 7], 'listed at pass 5: passes 5 and 6, then its turns (7)');
    assert.deepEqual(at.get(500), [1, 2, 4, 8], 'the one there from the start: its turns after pass 2');
  });

  it('an idle process is judged over the time since its last read: busy since then, its threads are read at its turn', () => {
    const p = busy(600, 'sleeper', 400, 0, 0);
    p.threads[0]!.busy = 0;
    m.add(p);
    const still = busy(604, 'sleeps on', 400, 0, 1);
    still.threads[0]!.busy = 0.01; // under the bar over any window
    m.add(still);
    const { read, root } = recording();
    const s = createSampler(root, { screen, recheckEvery: EVERY });
    const threadsAt: number[] = [];
    const stillAt: number[] = [];
    for (let pass = 1; pass <= 9; pass++) {
      read.length = 0;
      s.sample(pass * 1000);
      if (read.some((r) => r.startsWith('proc/600/task/'))) threadsAt.push(pass);
      if (read.some((r) => r.startsWith('proc/604/task/'))) stillAt.push(pass);
      if (pass === 5) p.threads[0]!.busy = 0.5; // half a CPU from here on: over the 0.05 bar
      m.tick(1);
    }
    // Its turns: passes 4 and 8 ((600 + pass) % 4). 1: new (its threads' baseline); 2: idle over
    // the pass (stat read, stopped); 4: its turn, idle; 8: its turn, 0.5 CPU over 3 of the 4 s
    // since pass 4 -> its threads' baseline; then read every pass.
    assert.deepEqual(threadsAt, [1, 8, 9]);
    assert.deepEqual(stillAt, [1], 'idle at each of its turns (4, 8): stopped at its stat');
  });
});

describe('process sampler: sampleProcesses', () => {
  it("tells what its pass could not read (doctor's 'not checked' builds on it)", async () => {
    m.add(busy(200, 'p', 10, 0, 0));
    const seen: unknown[] = [];
    const s = await sampleProcesses(m.root, {
      windowMs: 0,
      pids: [200, 4242],
      counts: (c) => void seen.push({ ...c }),
    });
    assert.deepEqual(
      s.map((p) => p.pid),
      [200],
    );
    assert.deepEqual(seen, [
      { scanned: 1, deferred: 0, mapped: 1, permission: 0, hidden: 0, vanished: 1, noMemory: 0, kept: 1 },
    ]);
  });
});

describe('process sampler: status later (stat --procs ranks every process, shows --top)', () => {
  it('a pass reads no status or cmdline; readDetails reads them for the samples shown', () => {
    m.add(busy(200, 'a', 10, 0, 0));
    m.add(busy(300, 'b', 30, 1, 1));
    const { read, root } = recording();
    const samples = createSampler(root, { statusLater: true }).sample(0);
    assert.deepEqual(
      samples.map((p) => [p.pid, p.comm, p.cmdline, p.cpusAllowed, p.threads]),
      [
        [200, '', '', null, 1],
        [300, '', '', null, 1],
      ],
    );
    assert.ok(!read.some((r) => /\/(status|cmdline)$/.test(r)), read.join(' '));
    const full = createSampler(m.root)
      .sample(0)
      .find((p) => p.pid === 300);
    assert.deepEqual(readDetails(root, samples[1]!), full);
    assert.deepEqual(
      read.filter((r) => /\/(status|cmdline)$/.test(r)),
      ['proc/300/status', 'proc/300/cmdline'],
    );
  });

  it('readDetails: null for a process gone since the pass', () => {
    m.add(busy(200, 'a', 10, 0, 0));
    const [s] = createSampler(m.root, { statusLater: true }).sample(0);
    rmSync(join(m.dir, 'proc/200'), { recursive: true });
    assert.equal(readDetails(m.root, s!), null);
  });

  it('is refused with an option that looks at status', () => {
    assert.throws(() => createSampler(m.root, { statusLater: true, prescreen: () => true }), /statusLater/);
  });

  it('a window: the first reading takes the threads only (no numa_maps), the second samples', async () => {
    m.add(busy(200, 'a', 10, 0, 0));
    const { read, root } = recording();
    const s = await sampleProcesses(root, { windowMs: 5, sleep: async () => void m.tick(1), statusLater: true });
    // One process's numa_maps (the tree's own, proc/self, says its page size).
    assert.equal(read.filter((r) => /^proc\/\d+\/numa_maps$/.test(r)).length, 1, read.join(' '));
    assert.equal(s[0]?.pid, 200);
  });
});
