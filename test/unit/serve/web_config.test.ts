// --web.config.file (the Prometheus exporter toolkit's format, as node_exporter's): the file's
// checks as one-line errors, who may connect, and `numakit serve` itself driven with curl over
// TLS: with and without a client certificate, a wrong password, an unknown user, an expired
// certificate and one from another CA. Certificates are made with openssl at test time.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { decideAccess } from '../../../src/serve/listen.js';
import { readWebConfig } from '../../../src/serve/web_config.js';
import { runMain } from '../../helpers/cli.js';
import { makeTestCerts, type TestCerts } from '../../helpers/tls_certs.js';
import { skipUnlessTools } from '../../helpers/tools.js';
import { startServe, type Child } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-webcfg-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const HASH = bcrypt.hashSync('s3cret-scrape', 10);

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

describe('the web config file is checked at start, each problem in one line', () => {
  for (const [name, text, msg] of [
    ['unknown key', 'tls_server_config: {cert_file: a, key_file: b}\nfoo: 1\n', /: unknown or unsupported key foo$/],
    [
      'an unsupported toolkit key',
      'tls_server_config: {cert_file: a, key_file: b, cipher_suites: [TLS_AES_128_GCM_SHA256]}\n',
      /: tls_server_config: unknown or unsupported key cipher_suites$/,
    ],
    [
      'a password, not a hash',
      'basic_auth_users: {prometheus: hunter2}\n',
      /basic_auth_users\.prometheus: expected a bcrypt hash/,
    ],
    ['http2', 'http_server_config: {http2: true}\n', /http2: numakit serves HTTP\/1\.1 only/],
    [
      'a header outside the allow-list',
      'http_server_config: {headers: {X-Powered-By: numakit}}\n',
      /http_server_config\.headers: unknown or unsupported key X-Powered-By$/,
    ],
    ['a bad X-Frame-Options', 'http_server_config: {headers: {X-Frame-Options: allow}}\n', /X-Frame-Options/],
    ['not YAML', 'tls_server_config: [\n', /: not YAML: /],
    [
      'a client CA without a client auth type',
      'tls_server_config: {cert_file: a, key_file: b, client_ca_file: c}\n',
      /client_ca_file is set but client_auth_type is NoClientCert/,
    ],
    [
      'verification without a CA',
      'tls_server_config: {cert_file: a, key_file: b, client_auth_type: RequireAndVerifyClientCert}\n',
      /client_auth_type RequireAndVerifyClientCert needs client_ca_file/,
    ],
    [
      'a missing certificate',
      'tls_server_config: {cert_file: nope.crt, key_file: nope.key}\n',
      /cert_file nope\.crt: no such file$/,
    ],
  ] as const) {
    it(name, () => {
      const f = file('bad.yml', text);
      assert.throws(
        () => readWebConfig(f),
        (e: Error) => {
          assert.match(e.message, msg);
          assert.ok(e.message.startsWith(`--web.config.file ${f}: `), e.message);
          assert.equal(e.message.split('\n').length, 1, e.message);
          return true;
        },
      );
    });
  }

  it('an empty file is no TLS, no users, no headers; users and headers are read', () => {
    assert.deepEqual(readWebConfig(file('empty.yml', '')), {
      file: join(dir, 'empty.yml'),
      tls: null,
      headers: {},
      users: new Map(),
    });
    const w = readWebConfig(
      file(
        'auth.yml',
        `basic_auth_users:\n  prometheus: ${HASH}\nhttp_server_config:\n  headers: {X-Frame-Options: deny}\n`,
      ),
    );
    assert.deepEqual([...w.users.keys()], ['prometheus']);
    assert.deepEqual(w.headers, { 'X-Frame-Options': 'deny' });
  });

  it('numakit serve with a bad file: exit 1, one line, nothing listening', async () => {
    const r = await runMain(['serve', '--web.config.file', file('bad2.yml', 'basic_auth_users: {a: b}\n')]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /^numakit: --web\.config\.file .*bad2\.yml: basic_auth_users\.a: expected a bcrypt hash/);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  });
});

describe('who may connect with a web config', () => {
  const users = new Map([['prometheus', HASH]]);
  const web = (o: Partial<Parameters<typeof decideAccess>[1]['web'] & object>) => ({
    file: '/etc/numakit/web.yml',
    tls: null,
    headers: {},
    users: new Map(),
    ...o,
  });
  it('basic_auth_users, or verified client certificates, open a non-loopback address', () => {
    const any = { host: '0.0.0.0', port: 10464 };
    assert.deepEqual(decideAccess(any, { web: web({ users }) }), { kind: 'web', file: '/etc/numakit/web.yml' });
    const verified = web({
      tls: {
        cert: Buffer.from(''),
        key: Buffer.from(''),
        ca: Buffer.from(''),
        clientAuth: 'RequireAndVerifyClientCert',
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.3',
      },
    });
    assert.equal(decideAccess(any, { web: verified }).kind, 'web');
  });
  it('TLS alone does not: still refused off loopback, naming the ways in', () => {
    const tlsOnly = web({
      tls: {
        cert: Buffer.from(''),
        key: Buffer.from(''),
        ca: null,
        clientAuth: 'NoClientCert',
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.3',
      },
    });
    assert.throws(
      () => decideAccess({ host: '0.0.0.0', port: 10464 }, { web: tlsOnly }),
      /reachable from other machines: give --token-file FILE \(a bearer token\), --web\.config\.file FILE/,
    );
    assert.equal(decideAccess({ host: '127.0.0.1', port: 10464 }, { web: tlsOnly }).kind, 'loopback');
  });
  it('--token-file and basic_auth_users together are refused', () => {
    assert.throws(
      () => decideAccess({ host: '127.0.0.1', port: 1 }, { tokenFile: '/t', web: web({ users }) }),
      /--token-file and basic_auth_users in \/etc\/numakit\/web\.yml cannot be used together/,
    );
  });
});

/** curl against serve: exit status, HTTP status, headers and body, stderr. */
function curl(url: string, args: string[]): { exit: number; status: string; out: string; err: string } {
  const r = spawnSync('curl', ['-sS', '-i', '--max-time', '20', '-w', '\n%{http_code}', ...args, url], {
    encoding: 'utf8',
  });
  const out = r.stdout ?? '';
  return { exit: r.status ?? -1, status: out.slice(out.lastIndexOf('\n') + 1), out, err: r.stderr ?? '' };
}

/** Waits (the event loop runs: spawnSync held it) until serve's stderr says this. */
async function stderrSays(c: Child, re: RegExp): Promise<void> {
  for (let i = 0; i < 100 && !re.test(c.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(c.stderr(), re);
}

describe('numakit serve over TLS, driven with curl', { skip: skipUnlessTools('openssl', 'curl') }, () => {
  let certs: TestCerts;
  let mtls: Child;
  let plain: Child;
  before(async () => {
    certs = makeTestCerts(mkdtempSync(join(dir, 'certs-')));
    const verified = file(
      'mtls.yml',
      [
        'tls_server_config:',
        `  cert_file: ${certs.serverCert}`,
        `  key_file: ${certs.serverKey}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${certs.caCert}`,
        'http_server_config:',
        '  headers: {Strict-Transport-Security: max-age=31536000}',
        'basic_auth_users:',
        `  prometheus: ${HASH}`,
        '',
      ].join('\n'),
    );
    // Relative paths: relative to the file's own directory, as the toolkit's.
    const passwordOnly = join(certs.dir, 'web.yml');
    writeFileSync(
      passwordOnly,
      `tls_server_config: {cert_file: server.crt, key_file: server.key}\nbasic_auth_users: {prometheus: '${HASH}'}\n`,
    );
    [mtls, plain] = await Promise.all([
      startServe(['--web.config.file', verified, '--doctor-interval', '1h']),
      startServe(['--web.config.file', passwordOnly, '--doctor-interval', '1h']),
    ]);
  });
  after(async () => {
    await Promise.all([mtls?.stop(), plain?.stop()]);
  });

  const ca = () => ['--cacert', certs.caCert];
  const client = (which: 'client' | 'expired' | 'stranger' = 'client') => [
    '--cert',
    join(certs.dir, `${which}.crt`),
    '--key',
    join(certs.dir, `${which}.key`),
  ];
  const login = (password = 's3cret-scrape', user = 'prometheus') => ['-u', `${user}:${password}`];

  it('starts on https and says how it is protected', () => {
    assert.match(mtls.base, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('a client certificate the CA signed and the right password: 200, the metrics, the configured header', () => {
    const r = curl(`${mtls.base}/metrics`, [...ca(), ...client(), ...login()]);
    assert.equal(r.exit, 0, r.err);
    assert.equal(r.status, '200', r.out.slice(0, 500));
    assert.match(r.out, /^strict-transport-security: max-age=31536000\r?$/im);
    assert.match(r.out, /^numakit_scrape_partial /m);
  });

  it('without a client certificate: the handshake is refused, no HTTP at all', async () => {
    const r = curl(`${mtls.base}/metrics`, [...ca(), ...login()]);
    assert.notEqual(r.exit, 0);
    assert.equal(r.status, '000');
    await stderrSays(mtls, /refused: no client certificate \(client_auth_type RequireAndVerifyClientCert\)$/m);
  });

  it('an expired client certificate (signed by the CA) is refused as expired', async () => {
    const r = curl(`${mtls.base}/metrics`, [...ca(), ...client('expired'), ...login()]);
    assert.notEqual(r.exit, 0);
    assert.equal(r.status, '000');
    // TLS 1.3: the client sees the socket close; the server says why, in one line.
    await stderrSays(
      mtls,
      /^numakit: serve: TLS connection from 127\.0\.0\.1 refused: client certificate: CERT_HAS_EXPIRED \(client_auth_type RequireAndVerifyClientCert\)$/m,
    );
  });

  it('a certificate from another CA is refused', async () => {
    const r = curl(`${mtls.base}/metrics`, [...ca(), ...client('stranger'), ...login()]);
    assert.notEqual(r.exit, 0);
    assert.equal(r.status, '000');
    await stderrSays(mtls, /refused: client certificate: UNABLE_TO_VERIFY_LEAF_SIGNATURE /);
  });

  it('a wrong password, an unknown user, no credentials: 401 with a Basic challenge', () => {
    for (const args of [login('wrong'), login('s3cret-scrape', 'root'), []]) {
      const r = curl(`${mtls.base}/metrics`, [...ca(), ...client(), ...args]);
      assert.equal(r.exit, 0, r.err);
      assert.equal(r.status, '401', args.join(' '));
      assert.match(r.out, /^www-authenticate: Basic realm="numakit"/im);
      assert.doesNotMatch(r.out, /numakit_scrape_partial/);
    }
  });

  it('with client_auth_type left out: no certificate needed, the password still is', () => {
    assert.equal(curl(`${plain.base}/metrics`, [...ca(), ...login()]).status, '200');
    assert.equal(curl(`${plain.base}/metrics`, [...ca(), ...login('wrong')]).status, '401');
  });

  it('the server certificate is checked by the client: an unknown CA fails', () => {
    const r = curl(`${plain.base}/metrics`, login());
    assert.notEqual(r.exit, 0);
    assert.match(r.err, /certificate/i);
  });
});
