// The HTTP server's safety: loopback unless told otherwise, read-only, exact routes (unknown
// paths and traversal attempts are 404), bounded headers and no bodies, a token when asked,
// and a client sending one byte a second does not hold the server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readTokenFile, tokenMatches } from '../../../src/serve/auth.js';
import { startHttpServer, type RunningServer } from '../../../src/serve/http_server.js';
import { decideAccess, isLoopback, parseListen } from '../../../src/serve/listen.js';

/** Sends raw bytes and returns what came back when the server closed (or after `waitMs`). */
function raw(port: number, data: string, waitMs = 2000): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1', () => sock.write(data));
    let got = '';
    sock.on('data', (d) => (got += d));
    const t = setTimeout(() => sock.destroy(), waitMs);
    sock.on('close', () => {
      clearTimeout(t);
      resolve(got);
    });
    sock.on('error', () => undefined);
  });
}

describe('serve http', () => {
  let srv: RunningServer;
  let base: string;
  before(async () => {
    srv = await startHttpServer({
      listen: { host: '127.0.0.1', port: 0 },
      token: null,
      what: 'test',
      routes: new Map([
        ['/metrics', () => ({ type: 'text/plain', body: 'ok_metric 1\n' })],
        ['/', () => ({ type: 'text/html', body: '<p>dash</p>' })],
      ]),
      limits: { headersTimeoutMs: 1500, requestTimeoutMs: 3000, checkIntervalMs: 250 },
    });
    base = `http://${srv.address}`;
  });
  after(() => srv.close());

  it('--listen: addresses, loopback detection, a reachable address needs a token or --insecure-public', () => {
    assert.deepEqual(parseListen('127.0.0.1:10464'), { host: '127.0.0.1', port: 10464 });
    assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseListen(':10464'), { host: '0.0.0.0', port: 10464 });
    assert.throws(() => parseListen('10464'), /expected ADDR:PORT/);
    assert.throws(() => parseListen('[zz]:1'), /expected ADDR:PORT|not an IPv6/);
    for (const h of ['127.0.0.1', '127.8.9.1', '::1', 'localhost']) assert.ok(isLoopback(h), h);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1']) assert.ok(!isLoopback(h), h);
    assert.throws(
      () => decideAccess({ host: '0.0.0.0', port: 1 }, {}),
      /reachable from other machines: give --token-file FILE/,
    );
    assert.deepEqual(decideAccess({ host: '0.0.0.0', port: 1 }, { insecurePublic: true }), { kind: 'public' });
    assert.throws(
      () => decideAccess({ host: '0.0.0.0', port: 1 }, { insecurePublic: true, tokenFile: 'f' }),
      /cannot be used together/,
    );
  });

  it('unknown paths are 404; traversal attempts never reach a file', async () => {
    assert.equal((await fetch(`${base}/metrics`)).status, 200);
    for (const p of [
      '/nope',
      '/metrics/',
      '/..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/../../package.json',
      '/app.js%00.css',
    ]) {
      const r = await fetch(`${base}${p}`);
      const text = await r.text();
      assert.equal(r.status, 404, p);
      assert.doesNotMatch(text, /root:|"name": "numakit"/, p);
    }
    // A raw request line with .. segments (fetch would normalise them).
    const res = await raw(srv.port, 'GET /../../../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(res, /^HTTP\/1\.1 404/);
    assert.doesNotMatch(res, /root:/);
    assert.match(
      await raw(srv.port, 'GET http://evil/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      /^HTTP\/1\.1 400/,
    );
  });

  it('read-only: other methods are 405, bodies 413, oversized headers 431', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'])
      assert.equal((await fetch(`${base}/metrics`, { method })).status, 405, method);
    assert.match(
      await raw(srv.port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello'),
      /^HTTP\/1\.1 413/,
    );
    assert.match(
      await raw(srv.port, `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`),
      /^HTTP\/1\.1 431/,
    );
    const r = await fetch(`${base}/`);
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  });

  it('a client sending one byte a second is cut off, and others are served meanwhile', async () => {
    const sock = connect(srv.port, '127.0.0.1');
    let closed = false;
    let reply = '';
    sock.on('data', (d) => (reply += d));
    sock.on('close', () => (closed = true));
    sock.on('error', () => undefined);
    const request = 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n';
    const t0 = Date.now();
    const served: number[] = [];
    for (let i = 0; i < 8 && !closed; i++) {
      if (!sock.destroyed) sock.write(request[i]!);
      const s0 = Date.now();
      assert.equal((await fetch(`${base}/metrics`)).status, 200);
      served.push(Date.now() - s0);
      await new Promise((r) => setTimeout(r, 1000));
    }
    assert.ok(closed, 'the slow connection was closed');
    assert.ok(Date.now() - t0 < 6000, `closed after ${Date.now() - t0} ms`);
    assert.match(reply, /^HTTP\/1\.1 408|^$/);
    // Never held up: each other request answered well within the one-second byte interval.
    assert.ok(Math.max(...served) < 900, `other requests took ${served.join(', ')} ms`);
    sock.destroy();
  });
});

describe('serve token', () => {
  let dir: string;
  let srv: RunningServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'numakit-token-'));
    writeFileSync(join(dir, 'token'), 'correct-horse-battery-staple\n', { mode: 0o600 });
    writeFileSync(join(dir, 'short'), 'abc\n', { mode: 0o600 });
    srv = await startHttpServer({
      listen: { host: '127.0.0.1', port: 0 },
      token: readTokenFile(join(dir, 'token')),
      what: 'test',
      routes: new Map([['/metrics', () => ({ type: 'text/plain', body: 'x 1\n' })]]),
    });
  });
  after(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the token file: one token of 16+ characters; missing and short ones are one-line errors', () => {
    assert.equal(readTokenFile(join(dir, 'token')), 'correct-horse-battery-staple');
    assert.throws(
      () => readTokenFile(join(dir, 'short')),
      /--token-file .*short: expected one token of at least 16 characters/,
    );
    assert.throws(() => readTokenFile(join(dir, 'absent')), /--token-file .*absent: no such file/);
    assert.equal(tokenMatches('abc', 'Bearer abd'), false);
  });

  it('requests need the token: Bearer (Prometheus) or Basic password (a browser)', async () => {
    const url = `http://${srv.address}/metrics`;
    const none = await fetch(url);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm="numakit"/);
    assert.equal((await fetch(url, { headers: { Authorization: 'Bearer wrong-token-wrong-token' } })).status, 401);
    assert.equal((await fetch(url, { headers: { Authorization: 'Bearer correct-horse-battery-staple' } })).status, 200);
    const basic = Buffer.from('anyone:correct-horse-battery-staple').toString('base64');
    assert.equal((await fetch(url, { headers: { Authorization: `Basic ${basic}` } })).status, 200);
    assert.equal((await fetch(`http://${srv.address}/nope`)).status, 401, 'no path is revealed without the token');
  });
});
