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
import { sleepWatched } from '../../../src/agent/run.js';
import { ProcessWatch } from '../../../src/agent/watch.js';
import { agentConfig } from '../../../src/cli/commands/agent.js';
import { screen, young } from '../../../src/policy/agent/candidates.js';
import { DEFAULT_POLICY } from '../../../src/policy/agent/types.js';
import { pidsSince, WATCH_YOUNG_TICKS, watchVerdict } from '../../../src/policy/agent/watch.js';
import { parseLastPid } from '../../../src/sysfs/proc_loadavg.js';
import { parseProcTgid } from '../../../src/sysfs/proc_status.js';
import { parseUptime } from '../../../src/sysfs/proc_uptime.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { busy, eachWithFakeMachine, fakeClock, type FakeMachine } from './tree.js';

describe('the files the watch reads', () => {
  it('/proc/loadavg: the last pid; /proc/uptime: seconds since boot; status: Tgid', () => {
    assert.equal(parseLastPid('0.52 0.58 0.59 2/1195 12345\n'), 12345);
    assert.equal(parseLastPid('0.00 0.01 0.05 1/80 4194303\0\0'), 4194303);
    assert.throws(() => parseLastPid('0.52 0.58 0.59 2/1195'), /last pid/);
    assert.equal(parseUptime('350735.47 234388.90\n'), 350735.47);
    assert.equal(parseUptime('12 3'), 12);
    assert.throws(() => parseUptime('up'), /not an uptime line/);
    assert.equal(parseProcTgid('Name:\tx\nTgid:\t42\nPid:\t43\n'), 42);
    assert.throws(() => parseProcTgid('Name:\tx\n'), /no Tgid/);
  });
});

describe('the watch policy', () => {
  it('pids since the last look: newest first, bounded, across a wrap of the counter', () => {
    assert.deepEqual(pidsSince(100, 100, 64), []);
    assert.deepEqual(pidsSince(100, 103, 64), [103, 102, 101]);
    assert.deepEqual(pidsSince(100, 200, 3), [200, 199, 198]);
    // pid_max reached: the counter starts again low; the newest are those from `last` down.
    assert.deepEqual(pidsSince(32760, 302, 3), [302, 301, 300]);
    assert.deepEqual(pidsSince(32760, 2, 64), [2, 1]);
  });

  it('one look: a process at --min-rss wakes the agent, a smaller one is followed, a kernel thread dropped', () => {
    const min = 32 << 20;
    assert.equal(watchVerdict({ rssBytes: min, vsizeBytes: 1 << 30 }, min), 'wake');
    assert.equal(watchVerdict({ rssBytes: min - 4096, vsizeBytes: 1 << 30 }, min), 'follow');
    assert.equal(watchVerdict({ rssBytes: 0, vsizeBytes: 0 }, min), 'drop');
  });
});

describe('ProcessWatch on a /proc tree', () => {
  let dir: string;
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const lastPid = (pid: number) => put('proc/loadavg', `0.10 0.20 0.30 1/90 ${pid}\n`);
  /** A process (or, with tgid, a thread of another) with `rssPages` resident, started at `start` ticks. */
  const task = (pid: number, rssPages: number, o: { start?: number; tgid?: number; kernel?: boolean } = {}) => {
    const f = Array.from({ length: 50 }, () => '0'); // f[i] is field i + 3
    f[0] = 'S';
    f[22 - 3] = String(o.start ?? 100);
    f[23 - 3] = o.kernel ? '0' : String((rssPages + 100) * 4096);
    f[24 - 3] = String(rssPages);
    put(`proc/${pid}/stat`, `${pid} (w) ${f.join(' ')}\n`);
    put(`proc/${pid}/status`, `Name:\tw\nTgid:\t${o.tgid ?? pid}\nPid:\t${pid}\n`);
  };
  const MIB = 256; // pages
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'numakit-watch-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads only /proc/loadavg while no process is created; a new large process wakes it once', () => {
    lastPid(500);
    const w = new ProcessWatch(openRoot(dir), { minRssBytes: 32 << 20, pageSize: 4096, selfPid: 1 });
    assert.equal(w.tick(), false, 'the first look only learns where the counter stands');
    assert.equal(w.tick(), false);
    assert.equal(w.lastReads, 0);
    task(502, 64 * MIB);
    lastPid(502);
    assert.equal(w.tick(), true, 'a new process at --min-rss');
    assert.equal(w.lastReads, 2, 'pids 502 and 501 (gone: one failed read)');
    assert.equal(w.tick(), false, 'seen once');
    assert.equal(w.lastReads, 0);
  });

  it('a new process that allocates after it starts: followed while small, wakes it once large; followed at most a few ticks', () => {
    lastPid(500);
    const w = new ProcessWatch(openRoot(dir), { minRssBytes: 32 << 20, pageSize: 4096, selfPid: 1 });
    w.tick();
    task(501, 4 * MIB);
    lastPid(501);
    assert.equal(w.tick(), false);
    assert.equal(w.following, 1);
    assert.equal(w.tick(), false);
    assert.equal(w.lastReads, 1, 'the young one only');
    task(501, 64 * MIB);
    assert.equal(w.tick(), true);
    assert.equal(w.following, 0);
    // Another that stays small is left to the passes after WATCH_YOUNG_TICKS ticks.
    task(502, 4 * MIB);
    lastPid(502);
    w.tick();
    for (let i = 0; i < WATCH_YOUNG_TICKS; i++) w.tick();
    assert.equal(w.following, 1, `read again at ${WATCH_YOUNG_TICKS} ticks`);
    w.tick();
    assert.equal(w.following, 0);
  });

  it('a new thread of a large process, the agent itself, a kernel thread and a reused pid do not wake it', () => {
    lastPid(500);
    const w = new ProcessWatch(openRoot(dir), { minRssBytes: 32 << 20, pageSize: 4096, selfPid: 503 });
    w.tick();
    task(501, 64 * MIB, { tgid: 400 });
    task(502, 0, { kernel: true });
    task(503, 64 * MIB);
    lastPid(503);
    assert.equal(w.tick(), false);
    assert.equal(w.following, 0);
    // A followed pid that exits and is reused by another process: that one is new, read from the stat's start.
    task(504, 4 * MIB, { start: 100 });
    lastPid(504);
    w.tick();
    task(504, 64 * MIB, { start: 200 });
    assert.equal(w.tick(), false, 'not the process it followed');
    assert.equal(w.following, 0);
  });
});

describe('sleepWatched', () => {
  it('sleeps in steps of --watch and ends at the first tick that wants a pass', async () => {
    const sleeps: number[] = [];
    const sleep = async (ms: number) => void sleeps.push(ms);
    const signal = new AbortController().signal;
    let ticks = 0;
    const watch = { tick: () => ++ticks === 3 };
    assert.equal(await sleepWatched(5000, { sleep, signal, watch, everyMs: 1000 }), true);
    assert.deepEqual(sleeps, [1000, 1000, 1000]);
    sleeps.length = 0;
    assert.equal(await sleepWatched(2500, { sleep, signal, watch: { tick: () => false }, everyMs: 1000 }), false);
    assert.deepEqual(sleeps, [1000, 1000, 500]);
    sleeps.length = 0;
    assert.equal(await sleepWatched(2500, { sleep, signal, watch: null, everyMs: 1000 }), false);
    assert.deepEqual(sleeps, [2500], 'no watch: one sleep');
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
    assert.equal(screen({ ...p, ageSeconds: 1 }, ctx, DEFAULT_POLICY), 'young');
    assert.equal(screen({ ...p, ageSeconds: 1, cpu: 0 }, ctx, DEFAULT_POLICY), 'idle');
    assert.equal(screen({ ...p, ageSeconds: 5 }, ctx, DEFAULT_POLICY), null);
    assert.equal(screen(p, ctx, DEFAULT_POLICY), null);
    assert.equal(young({ ageSeconds: 1 }, { minAgeMs: 0 }), false);
  });

  it('flags: --watch and --min-age take a duration or 0', async () => {
    const c = await agentConfig(['--watch', '250ms', '--min-age', '10s']);
    assert.equal(c.watchMs, 250);
    assert.equal(c.minAgeMs, 10_000);
    const off = await agentConfig(['--watch', '0', '--min-age', '0s']);
    assert.equal(off.watchMs, 0);
    assert.equal(off.minAgeMs, 0);
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

  it('is not moved before --min-age; the next pass comes after a short window and moves it once old enough', async () => {
    m.add(busy(200, 'spin', 400, 1, 0)); // started at 1200 ticks: 12 s after boot
    const lines: string[] = [];
    const pass = new AgentPass(cfg(), {
      root: m.root,
      ops: m.ops,
      journal: new AgentJournal(stateDir, new Date(0)),
      log: (l) => void lines.push(l),
      selfPid: 99999,
      pageSize: 4096,
      clock: fakeClock(),
    });
    writeFileSync(join(m.dir, 'proc/uptime'), '13.00 40.00\n');
    await pass.run(0);
    m.tick(1, [1]);
    writeFileSync(join(m.dir, 'proc/uptime'), '14.00 44.00\n');
    assert.deepEqual(await pass.run(1000), [], '2 s old');
    assert.equal(pass.wantsShortWindow, true);
    m.tick(3, [1]);
    writeFileSync(join(m.dir, 'proc/uptime'), '17.00 56.00\n');
    assert.equal((await pass.run(4000))[0]?.kind, 'move', '5 s old');
  });
});
