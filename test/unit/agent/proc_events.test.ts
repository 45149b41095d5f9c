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
