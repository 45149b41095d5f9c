// The watch between passes (policy/agent/watch.ts, agent/watch.ts, run.ts sleepWatched) and
// --min-age: a new large process gets a pass at once, a young busy one is judged once it is old
// enough, and while no process is created a tick reads one file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_AGENT, type AgentConfig } from '../../../src/agent/config.js';
import { AgentJournal } from '../../../src/agent/journal.js';
import { AgentPass } from '../../../src/agent/pass.js';
import type { EventBatch } from '../../../src/agent/proc_events.js';
import { sleepWatched } from '../../../src/agent/run.js';
import { ProcessWatch } from '../../../src/agent/watch.js';
import { agentConfig } from '../../../src/cli/commands/agent.js';
import { screen, young } from '../../../src/policy/agent/candidates.js';
import { DEFAULT_POLICY } from '../../../src/policy/agent/types.js';
import {
  followTicks,
  newPids,
  nextCollectMs,
  WATCH_COLLECT_MAX_MS,
  WATCH_FOLLOW_EXTRA,
  watchVerdict,
} from '../../../src/policy/agent/watch.js';
import { parseLastPid } from '../../../src/sysfs/proc_loadavg.js';
import { parseUptime } from '../../../src/sysfs/proc_uptime.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

describe('the files the watch reads', () => {
  it('/proc/loadavg: the last pid; /proc/uptime: seconds since boot', () => {
    assert.equal(parseLastPid('0.52 0.58 0.59 2/1195 12345\n'), 12345);
    assert.equal(parseLastPid('0.00 0.01 0.05 1/80 4194303\0\0'), 4194303);
    assert.throws(() => parseLastPid('0.52 0.58 0.59 2/1195'), /last pid/);
    assert.equal(parseUptime('350735.47 234388.90\n'), 350735.47);
    assert.equal(parseUptime('12 3'), 12);
    assert.throws(() => parseUptime('up'), /not an uptime line/);
  });
});

describe('the watch policy', () => {
  it('new pids: those the last listing did not hold, newest first, bounded', () => {
    assert.deepEqual(newPids([1, 5, 9], new Set([1, 5, 9]), 64), []);
    assert.deepEqual(newPids([1, 5, 7, 9, 12], new Set([1, 5, 9]), 64), [12, 7]);
    assert.deepEqual(newPids([1, 5, 7, 9, 12], new Set([1]), 2), [12, 9]);
  });

  it('one look: large, busy and old enough wakes the agent; short of any, followed; a kernel thread dropped', () => {
    const bars = { minRssBytes: 32 << 20, minCpu: 0.2, minAgeMs: 4000 };
    const look = { rssBytes: 32 << 20, vsizeBytes: 1 << 30, cpu: 1, ageSeconds: () => 5 };
    assert.equal(watchVerdict(look, bars), 'wake');
    assert.equal(watchVerdict({ ...look, rssBytes: (32 << 20) - 4096 }, bars), 'follow');
    assert.equal(watchVerdict({ ...look, cpu: null }, bars), 'follow', 'its first look: CPU unknown');
    assert.equal(watchVerdict({ ...look, cpu: 0.1 }, bars), 'follow');
    assert.equal(watchVerdict({ ...look, ageSeconds: () => 3 }, bars), 'follow');
    assert.equal(watchVerdict({ ...look, ageSeconds: () => null }, bars), 'wake', 'age unknown: not held back');
    assert.equal(watchVerdict({ ...look, ageSeconds: () => 3 }, { ...bars, minAgeMs: 0 }), 'wake');
    assert.equal(watchVerdict({ ...look, rssBytes: 0, vsizeBytes: 0 }, bars), 'drop');
    assert.equal(
      watchVerdict({ ...look, rssBytes: 1 << 20, vsizeBytes: (32 << 20) - 4096 }, bars),
      'drop',
      'its whole address space under --min-rss (a shell, a sleep): left to the passes',
    );
    assert.equal(followTicks({ minAgeMs: 4000, watchMs: 1000 }), 4 + WATCH_FOLLOW_EXTRA);
  });
});

describe('ProcessWatch on a /proc tree', () => {
  let dir: string;
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const uptime = (s: number) => put('proc/uptime', `${s}.00 0.00\n`);
  /** A process with `rssPages` resident and `cpu` ticks, started at `start` ticks. */
  const task = (
    pid: number,
    rssPages: number,
    o: { cpu?: number; start?: number; kernel?: boolean; vsize?: number } = {},
  ) => {
    const f = Array.from({ length: 50 }, () => '0'); // f[i] is field i + 3
    f[0] = 'S';
    f[14 - 3] = String(o.cpu ?? 0);
    f[22 - 3] = String(o.start ?? 100);
    f[23 - 3] = o.kernel ? '0' : String(o.vsize ?? 2 ** 30); // a program's address space: its heap reserved
    f[24 - 3] = String(rssPages);
    put(`proc/${pid}/stat`, `${pid} (w) ${f.join(' ')}\n`);
  };
  const MIB = 256; // pages
  const watch = (selfPid = 1, exclude: RegExp[] = []) =>
    new ProcessWatch(openRoot(dir), {
      include: [],
      exclude,
      minRssBytes: 32 << 20,
      minCpu: 0.2,
      minAgeMs: 4000,
      pageSize: 4096,
      selfPid,
      watchMs: 1000,
    });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'numakit-watch-'));
    uptime(100); // every process below started at 1 s: old enough
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads nothing while no process starts; a new large process wakes it once it is seen busy', () => {
    const w = watch();
    assert.equal(w.see(null, 0), false);
    assert.equal(w.lastReads, 0, 'no events, nothing followed: no read');
    task(502, 64 * MIB);
    assert.equal(w.see([502], 2000), false, 'its first look: idle over its life');
    assert.equal(w.lastReads, 1, 'the new one only');
    task(502, 64 * MIB, { cpu: 100 });
    assert.equal(w.see(null, 3000), true, 'a whole CPU over the last second');
    assert.equal(w.see(null, 4000), false, 'seen once');
    assert.equal(w.lastReads, 0);
  });

  it('at its first look a process that has lived half a second is judged by its CPU over its life', () => {
    const w = watch();
    uptime(102); // started at 1 s: 101 s old
    task(503, 64 * MIB, { cpu: 10_100 * 2 }); // two CPUs' worth of ticks
    assert.equal(w.see([503], 0), true, 'busy over its life: one look is enough');
    task(504, 64 * MIB, { cpu: 50 });
    assert.equal(w.see([504], 0), false, 'idle over its life: followed');
    assert.equal(w.following, 1);
    task(505, 64 * MIB, { cpu: 10_000, start: 9_980 }); // 0.2 s old
    assert.equal(w.see([505], 0), false, 'too young to judge its life: followed');
    assert.equal(w.following, 2);
    assert.equal(w.lastCounted, 1);
    task(506, 100, { vsize: 8 << 20 }); // a `sleep`: 8 MiB of address space
    assert.equal(w.see([506], 0), false);
    assert.equal(w.following, 2, 'dropped at its first look');
    assert.equal(w.lastCounted, 0);
  });

  it('followed while small, idle or young, for --min-age and a few ticks more; then left to the passes', () => {
    const w = watch();
    task(501, 4 * MIB, { start: 9950 }); // started at 99.5 s: half a second old
    assert.equal(w.see([501], 1000), false);
    assert.equal(w.following, 1);
    task(501, 64 * MIB, { start: 9950, cpu: 100 });
    uptime(101);
    assert.equal(w.see(null, 2000), false, 'large and busy, 1.5 s old');
    assert.equal(w.lastReads, 1, 'the followed one only');
    task(501, 64 * MIB, { start: 9950, cpu: 200 });
    uptime(104);
    assert.equal(w.see(null, 3000), true, '4.5 s old');
    assert.equal(w.following, 0);
    // Large but idle: never wakes it; followed for followTicks() ticks.
    task(502, 64 * MIB);
    w.see([502], 4000);
    const ticks = followTicks({ minAgeMs: 4000, watchMs: 1000 });
    for (let i = 1; i <= ticks; i++) assert.equal(w.see(null, 4000 + i * 1000), false);
    assert.equal(w.following, 1, `read again at ${ticks} ticks`);
    w.see(null, 99_000);
    assert.equal(w.following, 0);
  });

  it('lost events: /proc is listed and the processes it did not hold are looked at', () => {
    const w = watch();
    task(501, 4 * MIB);
    assert.equal(w.see('lost', 0), false);
    assert.equal(w.lastReads, 1, 'the first listing: its newest processes');
    task(502, 4 * MIB);
    w.see('lost', 1000);
    assert.equal(w.lastReads, 2, 'the followed one and the new one');
  });

  it('a process --exclude names does not wake it', () => {
    const w = watch(1, [/^w$/]);
    task(501, 64 * MIB);
    w.see([501], 1000);
    task(501, 64 * MIB, { cpu: 100 });
    assert.equal(w.see(null, 2000), false);
    assert.equal(w.following, 0);
  });

  it('the agent itself, a kernel thread and a reused pid do not wake it', () => {
    const w = watch(503);
    task(502, 0, { kernel: true });
    task(503, 64 * MIB);
    w.see([502, 503], 1000);
    assert.equal(w.following, 0);
    // A followed pid that exits and is reused by another process: that one is new, read from the stat's start.
    task(504, 4 * MIB, { start: 100 });
    w.see([504], 3000);
    assert.equal(w.following, 1);
    task(504, 64 * MIB, { start: 200, cpu: 100 });
    assert.equal(w.see(null, 4000), false, 'not the process it followed');
    assert.equal(w.following, 0);
  });
});

describe('sleepWatched', () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (ms: number) => void (t += ms) };
  };
  it('waits on the events for the whole sleep while nothing is followed, in steps of --watch while something is', async () => {
    const c = clock();
    const signal = new AbortController().signal;
    const waits: number[] = [];
    const batches: EventBatch[] = [[7], null, null];
    const events = {
      wait: async (ms: number) => {
        waits.push(ms);
        const b = batches.shift() ?? null;
        c.advance(b === null ? ms : 1000);
        return b;
      },
      collectFor: () => {},
      close: () => {},
    };
    let following = 0;
    const seen: EventBatch[] = [];
    const watch = {
      get following() {
        return following;
      },
      see: (b: EventBatch) => {
        seen.push(b);
        following = 1;
        return seen.length === 3;
      },
      lastCounted: 1,
      followAffinity: () => {},
    };
    const sleep = async () => assert.fail('no plain sleep with a watch');
    const o = { sleep, signal, watch: { events, watch, collectMs: 1000, lastBatchAt: 0 }, everyMs: 1000, now: c.now };
    assert.equal(await sleepWatched(5000, o), true);
    assert.deepEqual(waits, [5000, 1000, 1000], 'the whole sleep, then --watch steps while one is followed');
    assert.deepEqual(seen, [[7], null, null]);
    const plain: number[] = [];
    const sleep2 = async (ms: number) => void plain.push(ms);
    assert.equal(await sleepWatched(2500, { ...o, sleep: sleep2, watch: null }), false);
    assert.deepEqual(plain, [2500], 'no watch: one sleep');
  });
});

describe('pacing the batches', () => {
  it('a batch of processes all dropped at once doubles the next window, up to its cap; one kept, or a quiet spell, resets it', () => {
    const o = { counted: false, quiet: false, watchMs: 1000 };
    assert.equal(nextCollectMs(1000, o), 2000);
    assert.equal(nextCollectMs(4000, o), 8000);
    assert.equal(nextCollectMs(WATCH_COLLECT_MAX_MS, o), WATCH_COLLECT_MAX_MS);
    assert.equal(nextCollectMs(8000, { ...o, counted: true }), 1000);
    assert.equal(nextCollectMs(8000, { ...o, quiet: true }), 1000);
  });

  it('sleepWatched sets the window after each batch from what the look kept', async () => {
    let t = 0;
    const windows: number[] = [];
    let counted = 0;
    const batches: EventBatch[] = [[1], [2], [3], [4]];
    const w = {
      events: {
        wait: async () => {
          t += 100;
          return batches.shift() ?? null;
        },
        collectFor: (ms: number) => void windows.push(ms),
        close: () => {},
      },
      watch: { following: 0, see: () => false, lastCounted: 0, followAffinity: () => {} },
      collectMs: 1000,
      lastBatchAt: 0,
    };
    const sleep = async () => {};
    const signal = new AbortController().signal;
    await sleepWatched(350, { sleep, signal, watch: w, everyMs: 1000, now: () => t });
    assert.deepEqual(windows, [2000, 4000, 8000, 8000], 'churn: only dropped processes, up to the cap');
    w.watch.lastCounted = ++counted;
    batches.push([5]);
    await sleepWatched(100, { sleep, signal, watch: w, everyMs: 1000, now: () => t });
    assert.deepEqual(windows.at(-1), 1000, 'one worth following: back to --watch');
  });
});

describe('--min-age', () => {
  it('a busy process younger than --min-age is left for now (idle first); unknown age never', () => {
    const p = {
      pid: 10,
      comm: 'w',
      cmdline: 'w',
      rssBytes: 1 << 30,
      cpu: 1,
      cpusAllowed: null,
      cpusPermitted: [0],
      agentCpus: null,
    };
    const ctx = { selfPid: 1, nowMs: 0, cooldownUntil: { get: () => undefined } };
    const policy = { ...DEFAULT_POLICY, minAgeMs: 4000 };
    assert.equal(screen({ ...p, ageSeconds: 1 }, ctx, policy), 'young');
    assert.equal(screen({ ...p, ageSeconds: 1, cpu: 0 }, ctx, policy), 'idle');
    assert.equal(screen({ ...p, ageSeconds: 5 }, ctx, policy), null);
    assert.equal(screen(p, ctx, policy), null);
    assert.equal(screen({ ...p, ageSeconds: 1 }, ctx, DEFAULT_POLICY), null, 'off by default');
    assert.equal(young({ ageSeconds: 1 }, { minAgeMs: 0 }), false);
  });

  it('flags: --watch and --min-age take a duration or 0', async () => {
    const c = await agentConfig(['--watch', '250ms', '--min-age', '10s']);
    assert.equal(c.watchMs, 250);
    assert.equal(c.minAgeMs, 10_000);
    const off = await agentConfig(['--watch', '0', '--min-age', '0s']);
    assert.equal(off.watchMs, 0);
    assert.equal(off.minAgeMs, 0);
    assert.equal((await agentConfig(['--watch', 'off'])).watchMs, 0);
    assert.equal(
      (await agentConfig([])).watchMs,
      1000,
      'on by default: the process events cost nothing while none starts',
    );
    await assert.rejects(agentConfig(['--watch', 'soon']), /--watch 'soon': expected a duration/);
  });
});

describe('a young process in a pass', () => {
  let m: FakeMachine;
  let stateDir: string;
  eachWithFakeMachine((machine, d) => {
    m = machine;
    stateDir = d;
  });
  const cfg = (o: Partial<AgentConfig> = {}): AgentConfig => ({ ...DEFAULT_AGENT, stateDir, ...o });

  const young = async (o: Partial<AgentConfig>, watching: boolean) => {
    m.add(busy(200, 'spin', 400, 1, 0)); // started at 1200 ticks: 12 s after boot
    const lines: string[] = [];
    const pass = new AgentPass(cfg(o), {
      root: m.root,
      ops: m.ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    });
    pass.watching = watching;
    writeFileSync(join(m.dir, 'proc/uptime'), '13.00 40.00\n');
    await pass.run(0);
    m.tick(1, [1]);
    writeFileSync(join(m.dir, 'proc/uptime'), '14.00 44.00\n');
    assert.deepEqual(await pass.run(1000), [], '2 s old');
    const short = pass.wantsShortWindow;
    m.tick(3, [1]);
    writeFileSync(join(m.dir, 'proc/uptime'), '17.00 56.00\n');
    assert.equal((await pass.run(4000))[0]?.kind, 'move', '5 s old');
    return short;
  };

  it('is not moved before --min-age; without the watch the next pass comes after a short window, and moves it once old enough', async () => {
    assert.equal(await young({ watchMs: 0, minAgeMs: 4000 }, false), true);
  });

  it('with the watch, a young process does not shorten the sleep: the watch wakes the agent once it is old enough', async () => {
    assert.equal(await young({ watchMs: 1000, minAgeMs: 4000 }, true), false);
  });

  it('--watch on but the process events unavailable (no CAP_NET_ADMIN): the sleep is shortened as without the watch', async () => {
    assert.equal(await young({ watchMs: 1000, minAgeMs: 4000 }, false), true);
  });
});
