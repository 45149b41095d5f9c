// Type=notify for the agent's unit: the NOTIFY_SOCKET address and watchdog period (tables),
// then the agent as systemd starts it: a datagram socket bound here (through koffi, as Node has
// no unix datagram sockets) receives READY=1 with a STATUS once the agent is ready, WATCHDOG=1
// every half WATCHDOG_USEC, and STOPPING=1 after SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { loadKoffi } from '../../../src/native/koffi_load.js';
import { notifyAddress, watchdogPingMs } from '../../../src/native/sd_notify.js';

describe('NOTIFY_SOCKET and WATCHDOG_USEC', () => {
  it('a path is sun_path with its NUL; @name is the abstract namespace without one', () => {
    const path = notifyAddress('/run/systemd/notify')!;
    assert.equal(path.readUInt16LE(0), 1, 'AF_UNIX');
    assert.equal(path.subarray(2).toString(), '/run/systemd/notify\0');
    const abstract = notifyAddress('@/org/freedesktop/systemd1/notify/123')!;
    assert.equal(abstract.subarray(2).toString(), '\0/org/freedesktop/systemd1/notify/123');
    assert.equal(notifyAddress(undefined), null);
    assert.equal(notifyAddress(''), null);
    assert.throws(
      () => notifyAddress('run/notify'),
      /NOTIFY_SOCKET run\/notify: expected an absolute path or @abstract name/,
    );
    assert.throws(() => notifyAddress(`/${'x'.repeat(120)}`), /longer than 108 bytes/);
  });
  it('the watchdog is pinged every half period, only when meant for this pid', () => {
    assert.equal(watchdogPingMs({ WATCHDOG_USEC: '30000000' }, 7), 15_000);
    assert.equal(watchdogPingMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '7' }, 7), 15_000);
    assert.equal(watchdogPingMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '8' }, 7), null);
    assert.equal(watchdogPingMs({}, 7), null);
    assert.equal(watchdogPingMs({ WATCHDOG_USEC: 'x' }, 7), null);
  });
});

/** A bound AF_UNIX datagram socket at PATH, read without blocking. */
function listenDatagrams(path: string): { read: () => string[]; close: () => void } {
  const koffi = loadKoffi();
  const lib = koffi.load('libc.so.6');
  const socket = lib.func('int socket(int domain, int type, int protocol)');
  const bind = lib.func('int bind(int fd, const void *addr, uint32_t len)');
  const recv = lib.func('long recv(int fd, void *buf, size_t len, int flags)');
  const close = lib.func('int close(int fd)');
  const fd = socket(1, 2, 0) as number;
  assert.ok(fd >= 0, 'socket');
  const addr = notifyAddress(path)!;
  assert.equal(bind(fd, addr, addr.length), 0, `bind ${path}: errno ${koffi.errno()}`);
  const buf = Buffer.alloc(4096);
  const MSG_DONTWAIT = 0x40;
  return {
    read() {
      const got: string[] = [];
      for (;;) {
        const n = recv(fd, buf, buf.length, MSG_DONTWAIT) as number;
        if (n < 0) return got;
        got.push(buf.subarray(0, n).toString());
      }
    },
    close: () => void close(fd),
  };
}

describe('the agent under Type=notify', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-notify-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('READY=1 with its status once ready, WATCHDOG=1 every half period, STOPPING=1 on SIGTERM', async () => {
    const sock = listenDatagrams(join(dir, 'notify'));
    const bin = fileURLToPath(new URL('../../../src/cli/bin.ts', import.meta.url));
    const agent = spawn(
      process.execPath,
      ['--import', 'tsx', bin, 'agent', '--advise', '--interval', '1s', '--state-dir', join(dir, 'state')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NOTIFY_SOCKET: join(dir, 'notify'), WATCHDOG_USEC: '400000' },
      },
    );
    let err = '';
    agent.stderr.on('data', (d) => (err += d));
    const got: string[] = [];
    try {
      for (let i = 0; i < 600 && got.filter((m) => m === 'WATCHDOG=1').length < 2; i++) {
        got.push(...sock.read());
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(got[0] ?? '', /^READY=1\nSTATUS=pid \d+, every 1s.*advise only/, `${got.join(' | ')} ${err}`);
      assert.ok(got.filter((m) => m === 'WATCHDOG=1').length >= 2, `${got.join(' | ')} ${err}`);
      const exit = new Promise<number | null>((r) => agent.on('exit', (code) => r(code)));
      agent.kill('SIGTERM');
      assert.equal(await exit, 0, err);
      got.push(...sock.read());
      assert.equal(got.at(-1), 'STOPPING=1');
      assert.doesNotMatch(err, /cannot notify systemd/);
    } finally {
      agent.kill('SIGKILL');
      sock.close();
    }
  });
});
