// The kernel's process events (agent/proc_events.ts): the datagrams it parses, and on a live
// Linux system where the test may subscribe (root: CAP_NET_ADMIN), the real proc connector: a
// new process is reported, and close() ends the read blocked on the pool (the test process
// could not exit otherwise).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type EventBatch,
  listenMessage,
  openProcessEvents,
  parseProcEvent,
  type ProcessEventSource,
} from '../../../src/agent/proc_events.js';
import { needTools } from '../../helpers/tools.js';

/** A datagram as the kernel sends it: nlmsghdr, cn_msg, proc_event (fork: parent pid/tgid, child pid/tgid). */
function forkDatagram(childPid: number, childTgid: number, what = 1): Buffer {
  const b = Buffer.alloc(76);
  b.writeUInt32LE(76, 0);
  b.writeUInt16LE(3, 4);
  b.writeUInt32LE(1, 16); // CN_IDX_PROC
  b.writeUInt32LE(1, 20);
  b.writeUInt16LE(40, 32);
  b.writeUInt32LE(what, 36);
  b.writeUInt32LE(childPid, 60);
  b.writeUInt32LE(childTgid, 64);
  return b;
}

describe('proc connector datagrams', () => {
  it('a fork of a process is a new pid; of a thread, another event, or a datagram a process sent: nothing', () => {
    assert.deepEqual(parseProcEvent(forkDatagram(42, 42), 76), { kind: 'fork', pid: 42 });
    assert.equal(parseProcEvent(forkDatagram(43, 42), 76), null, 'a thread of 42');
    assert.equal(parseProcEvent(forkDatagram(42, 42, 2), 76), null, 'exec');
    assert.equal(parseProcEvent(forkDatagram(42, 42), 40), null, 'cut short');
    const sent = forkDatagram(42, 42);
    sent.writeUInt32LE(4242, 12);
    assert.equal(parseProcEvent(sent, 76), null, 'a fork datagram a process sent');
  });

  it('the subscription: PROC_CN_MCAST_LISTEN to the proc connector, from our port', () => {
    const m = listenMessage(777);
    assert.equal(m.readUInt32LE(0), m.length);
    assert.equal(m.readUInt32LE(12), 777);
    assert.deepEqual([m.readUInt32LE(16), m.readUInt32LE(20), m.readUInt16LE(32), m.readUInt32LE(36)], [1, 1, 4, 1]);
  });
});

/** The real source, or why this machine cannot give it (not Linux, no CAP_NET_ADMIN). */
function live(collectMs: number): ProcessEventSource | string {
  if (process.platform !== 'linux') return 'not Linux';
  try {
    return openProcessEvents(collectMs);
  } catch (e) {
    return (e as Error).message;
  }
}

const source = live(200);
const why = typeof source === 'string' ? `the proc connector is not open to this test: ${source}` : false;
if (typeof source !== 'string') source.close();

describe('the proc connector, live', { skip: why }, () => {
  const never = new AbortController().signal;

  it('reports a new process; close() ends the read blocked on the pool', async () => {
    const ev = openProcessEvents(200);
    try {
      const child = spawn('sleep', ['0.5']);
      const got: number[] = [];
      for (let i = 0; i < 20 && !got.includes(child.pid!); i++) {
        const b: EventBatch = await ev.wait(2000, never);
        if (Array.isArray(b)) got.push(...b);
      }
      assert.ok(got.includes(child.pid!), `pid ${child.pid} among ${got.join(' ')}`);
      await new Promise((r) => child.once('exit', r));
    } finally {
      ev.close();
    }
  });

  it('close() ends the poll on the pool though no datagram ever comes: the process exits at once', async () => {
    // The child's filter drops every datagram: only the stop pipe can end its poll. Were the poll
    // left blocked, its exit would wait for it (Node joins its pool) until the time limit.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('quiet_close.ts', import.meta.url))],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const limit = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await once(child, 'exit');
    clearTimeout(limit);
    assert.equal(signal, null, `killed at the time limit: the poll held its exit\n${out}`);
    assert.equal(code, 0, out);
    const ms = Number(/exit (\d+) ms after close/.exec(out)?.[1]);
    assert.ok(ms < 2000, out);
  });

  it('a window of 400 forks is kept whole: the socket does not overflow (no listing of /proc)', async () => {
    // 400 forks take about 370 KiB of the socket's buffer: more than the kernel's default 208 KiB.
    const ev = openProcessEvents(5000);
    try {
      const sh = spawn('sh', ['-c', 'i=0; while [ $i -lt 400 ]; do /bin/true & i=$((i+1)); done; wait']);
      const got: number[] = [];
      let lost = false;
      const exited = once(sh, 'exit');
      for (let i = 0; i < 20 && got.length < 400 && !lost; i++) {
        const b: EventBatch = await ev.wait(10_000, never);
        if (b === 'lost') lost = true;
        else if (b !== null) got.push(...b);
      }
      await exited;
      assert.equal(lost, false, `the socket overflowed after ${got.length} forks`);
      assert.ok(got.length >= 400, `${got.length} forks`);
    } finally {
      ev.close();
    }
  });

  it('forks coming steadily, windows longer than --watch: the socket is read once a window, no poll on the pool', async () => {
    const ev = openProcessEvents(100);
    const sh = spawn('sh', ['-c', 'while :; do /bin/true; sleep 0.02; done']);
    try {
      const batch = async () => {
        for (let i = 0; i < 20; i++) if (Array.isArray(await ev.wait(5000, never))) return performance.now();
        throw new Error('no batch');
      };
      await batch();
      ev.collectFor(800);
      await batch(); // its window was started by a fork (the poll); the next ones by the batch before
      const polls = ev.polls;
      const at = [await batch(), await batch(), await batch(), await batch()];
      // Each batch started by a poll before: 4 at least. One allowed for a window a loaded machine left without a fork.
      assert.ok(ev.polls - polls <= 1, `${ev.polls - polls} polls started while forks kept coming`);
      assert.ok(at[3]! - at[0]! >= 2000, `batches over ${Math.round(at[3]! - at[0]!)} ms`);
    } finally {
      sh.kill('SIGKILL');
      ev.close();
    }
  });

  it('a wait ends at its time, or at once when aborted', async () => {
    const ev = openProcessEvents(200);
    try {
      const stop = new AbortController();
      const t0 = performance.now();
      const waiting = ev.wait(60_000, stop.signal);
      setTimeout(() => stop.abort(), 50);
      const b = await waiting;
      assert.ok(b === null || Array.isArray(b));
      assert.ok(performance.now() - t0 < 5000);
    } finally {
      ev.close();
    }
  });
});

describe('without CAP_NET_ADMIN, for real', { skip: why }, () => {
  it('the agent says once, in one line, that it falls back to the passes and what that costs; it runs on', async (t) => {
    if (!needTools(t, 'setpriv')) return;
    const bin = fileURLToPath(new URL('../../../src/cli/bin.ts', import.meta.url));
    // Root without CAP_NET_ADMIN in its bounding set (as under a unit that does not grant it): bind() gets EPERM.
    const agent = spawn(
      'setpriv',
      [
        '--bounding-set',
        '-net_admin',
        process.execPath,
        '--import',
        'tsx',
        bin,
        'agent',
        '--advise',
        '--interval',
        '1s',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    agent.stdout.on('data', (d) => (out += d));
    agent.stderr.on('data', (d) => (out += d));
    try {
      for (let i = 0; i < 1200 && !/numakit agent ready/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      const exit = once(agent, 'exit');
      agent.kill('SIGTERM');
      assert.equal((await exit)[0], 0, out);
      const off = out.split('\n').filter((l) => l.includes('watch between passes is off'));
      assert.equal(off.length, 1, out);
      assert.match(
        off[0]!,
        /\(bind\(proc connector\): Operation not permitted \(EPERM\); it needs CAP_NET_ADMIN and AF_NETLINK\); falling back to the passes: a new process is seen up to 3 s after it starts instead of about 1 s$/,
      );
      assert.match(out, /numakit agent ready/, 'it runs on without the watch');
    } finally {
      agent.kill('SIGKILL');
    }
  });
});
