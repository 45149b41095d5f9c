// agent --metrics takes serve's listener rule (src/serve/listener.ts) under its own option names:
// --metrics-web-config-file (serve's --web.config.file: TLS, client certificates, bcrypt
// basic_auth_users, headers), loopback by default, an address other machines reach refused
// without authentication, and the secret-file checks of src/runtime/private_path.ts on the web
// config, its certificates and its private key (serve's too). Driven with curl over TLS.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { type AgentMetrics, startMetrics } from '../../../src/agent/metrics.js';
import { agentConfig } from '../../../src/cli/commands/agent.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { runMain, TEST_DIR } from '../../helpers/cli.js';
import { makeTestCerts, type TestCerts } from '../../helpers/tls_certs.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-agent-web-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const HASH = bcrypt.hashSync('s3cret-scrape', 4);
const root = () => openRoot(join(TEST_DIR, 'fixtures/stat/four-node'));

function file(name: string, text: string, mode = 0o600): string {
  writeFileSync(join(dir, name), text);
  chmodSync(join(dir, name), mode);
  return join(dir, name);
}

/** startMetrics must refuse: the error matches; a server it started anyway is closed (no test left hanging). */
async function refused(p: Promise<AgentMetrics>, why: RegExp): Promise<void> {
  let m: AgentMetrics;
  try {
    m = await p;
  } catch (e) {
    assert.match(`${(e as Error).name}: ${(e as Error).message}`, why);
    return;
  }
  await m.close();
  assert.fail(`started on ${m.address}, expected ${why}`);
}

const TLS_ONLY_NEEDS = (what: string, flags: string) =>
  new RegExp(`${what}: 0\\.0\\.0\\.0 is reachable from other machines: give ${flags}`);

describe('agent --metrics: who may connect is serve’s rule, in the agent’s option names', () => {
  it('a flag and a config file key, like the other metrics-* settings', async () => {
    assert.equal(
      (await agentConfig(['--metrics-web-config-file', '/etc/numakit/web.yml'])).metricsWebConfigFile,
      '/etc/numakit/web.yml',
    );
    const yml = file('agent.yaml', 'metrics: 10464\nmetrics-web-config-file: /etc/numakit/web.yml\n', 0o644);
    assert.equal((await agentConfig(['--config', yml])).metricsWebConfigFile, '/etc/numakit/web.yml');
  });

  it('basic_auth_users opens an address other machines reach; the ready text says how it is protected', async () => {
    const m = await startMetrics('0.0.0.0:0', {
      root: root(),
      webConfigFile: file('users.yml', `basic_auth_users: {prometheus: '${HASH}'}\n`),
    });
    try {
      assert.equal(m.scheme, 'http');
      assert.match(m.access, /^credentials required \(.*users\.yml\); plain HTTP, basic auth \(1 user\) from /);
      const url = `http://127.0.0.1:${m.address.split(':').pop()}/metrics`;
      assert.equal((await fetch(url)).status, 401);
      const ok = await fetch(url, { headers: { authorization: `Basic ${btoa('prometheus:s3cret-scrape')}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /^numakit_agent_decisions_total\{outcome="moved"\} 0$/m);
    } finally {
      await m.close();
    }
  });

  it('without authentication an address other machines reach is refused, naming the agent’s options', async () => {
    const certs = makeTestCerts(mkdtempSync(join(dir, 'refuse-')));
    const tlsOnly = file(
      'tls-only.yml',
      `tls_server_config: {cert_file: ${certs.serverCert}, key_file: ${certs.serverKey}}\n`,
    );
    await refused(
      startMetrics('0.0.0.0:0', { root: root(), webConfigFile: tlsOnly }),
      TLS_ONLY_NEEDS(
        'agent --metrics',
        '--metrics-token-file FILE \\(a bearer token\\), --metrics-web-config-file FILE',
      ),
    );
    const r = await runMain(['serve', '--listen', '0.0.0.0:0', '--web.config.file', tlsOnly]);
    assert.match(
      r.err,
      TLS_ONLY_NEEDS('numakit: serve', '--token-file FILE \\(a bearer token\\), --web\\.config\\.file FILE'),
    );
    await refused(
      startMetrics('127.0.0.1:0', {
        root: root(),
        tokenFile: '/nonexistent',
        webConfigFile: file('both.yml', `basic_auth_users: {prometheus: '${HASH}'}\n`),
      }),
      /^UsageError: agent --metrics: --metrics-token-file and basic_auth_users in .*both\.yml cannot be used together/,
    );
  });

  it('a bad file is one line naming --metrics-web-config-file', async () => {
    const bad = file('bad.yml', 'basic_auth_users: {a: b}\n');
    const line = `--metrics-web-config-file ${bad}: basic_auth_users.a: expected a bcrypt hash ($2y$10$... : htpasswd -nbBC 10 "" PASSWORD)`;
    await refused(
      startMetrics('127.0.0.1:0', { root: root(), webConfigFile: bad }),
      new RegExp(`^NumakitError: ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
  });
});

describe('the web config’s files are checked like every secret file (serve and agent)', {
  skip: skipUnlessTools('openssl'),
}, () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts(mkdtempSync(join(dir, 'perm-')));
  });

  it('a private key other users can read is refused, in one line, by both daemons', async () => {
    const key = join(certs.dir, 'open.key');
    copyFileSync(certs.serverKey, key);
    chmodSync(key, 0o644);
    const web = file('open-key.yml', `tls_server_config: {cert_file: ${certs.serverCert}, key_file: ${key}}\n`);
    const why =
      /tls_server_config\.key_file .*open\.key: readable or writable by other users \(mode 644\): chmod 600 it/;
    await refused(startMetrics('127.0.0.1:0', { root: root(), webConfigFile: web }), why);
    const r = await runMain(['serve', '--listen', '127.0.0.1:0', '--web.config.file', web]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, why);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  });

  it('a web config another user owns (who could add a user to it) is refused', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('needs root to give the file to another user');
    const web = file('theirs.yml', `basic_auth_users: {prometheus: '${HASH}'}\n`);
    chownSync(web, 65534, 65534);
    await refused(
      startMetrics('127.0.0.1:0', { root: root(), webConfigFile: web }),
      /^UnsafePathError: --metrics-web-config-file .*theirs\.yml: .*theirs\.yml is owned by uid 65534; another user could change what numakit trusts there$/,
    );
    const r = await runMain(['serve', '--listen', '127.0.0.1:0', '--web.config.file', web]);
    assert.match(r.err, /^numakit: --web\.config\.file .*theirs\.yml: .* is owned by uid 65534/);
  });
});

/** curl, run asynchronously: the server under test is in this process, so its event loop must keep turning. */
function curl(url: string, args: string[]): Promise<{ exit: number; status: string; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn('curl', ['-sS', '-i', '--max-time', '20', '-w', '\n%{http_code}', ...args, url]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ exit: code ?? -1, status: out.slice(out.lastIndexOf('\n') + 1), out, err }));
  });
}

describe('agent --metrics over TLS with client certificates and basic auth, driven with curl', {
  skip: skipUnlessTools('openssl', 'curl'),
}, () => {
  let certs: TestCerts;
  let m: AgentMetrics;
  const logged: string[] = [];
  before(async () => {
    certs = makeTestCerts(mkdtempSync(join(dir, 'mtls-')));
    const web = file(
      'mtls.yml',
      [
        'tls_server_config:',
        `  cert_file: ${certs.serverCert}`,
        `  key_file: ${certs.serverKey}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${certs.caCert}`,
        'basic_auth_users:',
        `  prometheus: '${HASH}'`,
        '',
      ].join('\n'),
    );
    m = await startMetrics('127.0.0.1:0', { root: root(), webConfigFile: web, log: (l) => void logged.push(l) });
  });
  after(async () => {
    await m?.close();
  });
  const url = () => `${m.scheme}://${m.address}/metrics`;
  const ca = () => ['--cacert', certs.caCert];
  const client = () => ['--cert', certs.clientCert, '--key', certs.clientKey];

  it('https, a client certificate the CA signed and the password: 200 with the agent’s metrics', async () => {
    assert.equal(m.scheme, 'https');
    const r = await curl(url(), [...ca(), ...client(), '-u', 'prometheus:s3cret-scrape']);
    assert.equal(r.status, '200', r.err);
    assert.match(r.out, /^numakit_agent_decisions_total\{outcome="moved"\} 0\r?$/m);
  });

  it('a wrong password: 401; no client certificate: refused at the handshake, said in one line', async () => {
    assert.equal((await curl(url(), [...ca(), ...client(), '-u', 'prometheus:wrong'])).status, '401');
    const r = await curl(url(), [...ca(), '-u', 'prometheus:s3cret-scrape']);
    assert.equal(r.status, '000');
    for (let i = 0; i < 100 && logged.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    assert.match(
      logged.join(''),
      /^numakit: agent --metrics: TLS connection from 127\.0\.0\.1 refused: no client certificate \(client_auth_type RequireAndVerifyClientCert\)\n/m,
    );
  });
});
