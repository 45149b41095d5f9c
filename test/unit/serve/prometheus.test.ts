// A real Prometheus (Debian's) on loopback scrapes `numakit serve` on this machine, loads the
// alert rules, and answers PromQL over its HTTP API with numakit's series: the exporter works
// with the server it is for, not only with its own parser. A second job scrapes a second serve
// behind --web.config.file: TLS, a client certificate and bcrypt basic auth, as node_exporter's
// are scraped. One Prometheus start, seconds.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { REPO_DIR } from '../../helpers/cli.js';
import { readRules } from './dashboard_queries.js';
import { makeTestCerts } from '../../helpers/tls_certs.js';
import { skipUnlessTools, toolPath } from '../../helpers/tools.js';
import { startServe, type Child } from './helpers.js';

const skip = skipUnlessTools('prometheus', 'openssl');
const PROMETHEUS = toolPath('prometheus') ?? 'prometheus';

/** A free loopback port (Prometheus has no "port 0, tell me which"). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Vector {
  metric: Record<string, string>;
  value: [number, string];
}

describe('prometheus scrapes numakit serve', {
  skip,
}, () => {
  let dir: string;
  let serve: Child;
  let secure: Child;
  let prom: ChildProcess;
  let api: string;
  let log = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'numakit-prom-'));
    const certs = makeTestCerts(mkdtempSync(join(dir, 'certs-')));
    writeFileSync(
      join(dir, 'web.yml'),
      [
        'tls_server_config:',
        `  {cert_file: ${certs.serverCert}, key_file: ${certs.serverKey}, client_auth_type: RequireAndVerifyClientCert, client_ca_file: ${certs.caCert}}`,
        `basic_auth_users: {prometheus: '${bcrypt.hashSync('scrape-pass-42', 10)}'}`,
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'password'), 'scrape-pass-42\n');
    [serve, secure] = await Promise.all([
      startServe(['--doctor-interval', '1h']),
      startServe(['--doctor-interval', '1h', '--web.config.file', join(dir, 'web.yml')]),
    ]);
    const port = await freePort();
    api = `http://127.0.0.1:${port}/api/v1`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}',
        `rule_files: ['${join(REPO_DIR, 'contrib/prometheus/numakit-alerts.yml')}']`,
        'scrape_configs:',
        '  - job_name: numakit',
        `    static_configs: [{targets: ['${new URL(serve.base).host}']}]`,
        '  - job_name: numakit-tls',
        '    scheme: https',
        `    tls_config: {ca_file: ${certs.caCert}, cert_file: ${certs.clientCert}, key_file: ${certs.clientKey}}`,
        `    basic_auth: {username: prometheus, password_file: ${join(dir, 'password')}}`,
        `    static_configs: [{targets: ['${new URL(secure.base).host}']}]`,
        '',
      ].join('\n'),
    );
    prom = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prom.stderr!.on('data', (d: Buffer) => (log += d));
  });
  after(async () => {
    prom?.kill('SIGTERM');
    await new Promise((r) => (prom?.exitCode !== null ? r(null) : prom.once('exit', r)));
    await Promise.all([serve?.stop(), secure?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs an instant query until it returns series (Prometheus starts, then scrapes every second). */
  async function query(q: string, timeoutMs = 30_000): Promise<Vector[]> {
    const t0 = Date.now();
    for (;;) {
      try {
        const r = (await (await fetch(`${api}/query?query=${encodeURIComponent(q)}`)).json()) as {
          status: string;
          data: { result: Vector[] };
        };
        if (r.status === 'success' && r.data.result.length > 0) return r.data.result;
      } catch {
        /* not listening yet */
      }
      if (Date.now() - t0 > timeoutMs) assert.fail(`no result for ${q} in ${timeoutMs} ms; prometheus said: ${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('up, node_memory_numa_MemTotal of every node, numakit counters rate() over', async () => {
    assert.equal((await query('up{job="numakit"} == 1'))[0]!.metric.instance, new URL(serve.base).host);
    const nodes = readFileSync('/sys/devices/system/node/online', 'utf8').trim();
    const mem = await query('node_memory_numa_MemTotal{job="numakit"}');
    assert.ok(mem.length >= 1, nodes);
    const m0 = /Node 0 MemTotal:\s+(\d+) kB/.exec(readFileSync('/sys/devices/system/node/node0/meminfo', 'utf8'))!;
    assert.equal(Number(mem.find((v) => v.metric.node === '0')!.value[1]), Number(m0[1]) * 1024);
    const busy = await query('rate(numakit_node_cpu_seconds_total{mode="busy"}[5s])');
    assert.ok(busy.every((v) => Number(v.value[1]) >= 0));
    assert.ok((await query('numakit_scrape_partial{job="numakit"} == 0')).length === 1);
  });

  it('scrapes the exporter over TLS with a client certificate and basic auth', async () => {
    assert.equal((await query('up{job="numakit-tls"} == 1'))[0]!.metric.instance, new URL(secure.base).host);
    assert.match(secure.base, /^https:/);
    assert.ok((await query('numakit_scrape_partial{job="numakit-tls"} == 0')).length === 1);
  });

  it('the alert rules are loaded and evaluated', async () => {
    const t0 = Date.now();
    for (;;) {
      const r = (await (await fetch(`${api}/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string }[] }[] };
      };
      const rules = r.data.groups.flatMap((g) => g.rules);
      if (rules.length === readRules().length && rules.every((x) => x.health === 'ok')) break;
      if (Date.now() - t0 > 20_000) assert.fail(`rules: ${JSON.stringify(rules)}`);
      await new Promise((res) => setTimeout(res, 250));
    }
  });
});
