// The daemons as installed (dist/cli/bin.js), as processes on this machine, meeting what a long
// life brings: SIGHUP (logrotate's and systemd's reload signal; its default action ended both
// daemons, the agent without putting anything back) and a port already taken at start.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';

const BIN = join(REPO_DIR, 'dist/cli/bin.js');

interface Daemon {
  readonly child: ChildProcessWithoutNullStreams;
  out: string;
  err: string;
  /** Resolves once stdout+stderr match (rejects after 30 s with what it printed). */
  until(re: RegExp): Promise<RegExpExecArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Daemon {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
  });
  const d: Daemon = {
    child,
    out: '',
    err: '',
    exit: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal }))),
    until: (re) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(d.out + d.err);
          if (m) {
            clearTimeout(t);
            child.stdout.off('data', check);
            child.stderr.off('data', check);
            resolve(m);
          }
        };
        const t = setTimeout(() => reject(new Error(`no ${re} within 30 s:\n${d.out}${d.err}`)), 30_000);
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        void d.exit.then(() => setImmediate(check));
        check();
      }),
  };
  child.stdout.on('data', (b: Buffer) => void (d.out += b));
  child.stderr.on('data', (b: Buffer) => void (d.err += b));
  return d;
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'numakit-daemon-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('SIGHUP', () => {
  it('serve: re-reads --token-file (the new token works, the old one no more), goes on; SIGTERM ends it with 0', {
    timeout: 60_000,
  }, async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'first-token-0123456789\n', { mode: 0o600 });
    const d = start(['serve', '--listen', '127.0.0.1:0', '--token-file', tokenFile]);
    try {
      const [, address] = await d.until(/serve: http:\/\/(\S+)\//);
      const get = (token: string) =>
        fetch(`http://${address}/metrics`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
      assert.equal(await get('first-token-0123456789'), 200);
      writeFileSync(tokenFile, 'second-token-0123456789\n');
      d.child.kill('SIGHUP');
      await d.until(/numakit: serve: SIGHUP: token re-read from \S+\n/);
      assert.equal(await get('second-token-0123456789'), 200);
      assert.equal(await get('first-token-0123456789'), 401);
      writeFileSync(tokenFile, 'short\n');
      d.child.kill('SIGHUP');
      await d.until(/SIGHUP: --token-file \S+: expected one token .*; the token in use is kept\n/);
      assert.equal(await get('second-token-0123456789'), 200);
      d.child.kill('SIGTERM');
      assert.deepEqual(await d.exit, { code: 0, signal: null }, d.err);
    } finally {
      d.child.kill('SIGKILL');
    }
  });

  it('agent: logs what SIGHUP does and goes on passing; SIGTERM ends it with 0', { timeout: 90_000 }, async () => {
    const d = start([
      'agent',
      '--advise',
      '--interval',
      '1s',
      '--max-interval',
      '1s',
      '--state-dir',
      join(dir, 'state'),
      '--include',
      'nothing-matches-this',
    ]);
    try {
      await d.until(/numakit agent ready/);
      d.child.kill('SIGHUP');
      await d.until(/SIGHUP: nothing to reload; settings are read only at start \(restart the agent to change them\)/);
      // Still alive two intervals later.
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(d.child.exitCode, null, `the agent ended on SIGHUP:\n${d.out}${d.err}`);
      d.child.kill('SIGTERM');
      assert.deepEqual(await d.exit, { code: 0, signal: null }, d.out + d.err);
    } finally {
      d.child.kill('SIGKILL');
    }
  });
});

describe('the port taken at start', () => {
  let holder: Server;
  let port: number;
  before(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    port = (holder.address() as { port: number }).port;
  });
  after(() => holder.close());

  for (const [what, args] of [
    ['serve', ['serve', '--listen']],
    ['agent --metrics', ['agent', '--advise', '--state-dir', '/nonexistent/unused', '--metrics']],
  ] as const) {
    it(`${what}: one line naming the address, exit 1`, { timeout: 60_000 }, async () => {
      const d = start([...args, `127.0.0.1:${port}`]);
      const r = await d.exit;
      assert.equal(r.code, 1, d.out + d.err);
      assert.equal(d.err, `numakit: ${what}: cannot listen on 127.0.0.1:${port}: address in use\n`);
    });
  }
});
