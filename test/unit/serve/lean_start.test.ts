// A plain HTTP server starts without Node's TLS modules: node:https (and node:tls under it) is
// loaded only when --web.config.file has tls_server_config.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_DIR } from '../../helpers/cli.js';
import { makeTestCerts } from '../../helpers/tls_certs.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const server = pathToFileURL(join(REPO_DIR, 'src', 'serve', 'http_server.ts')).href;

/** Node's TLS modules loaded by a child that starts a server (with `web` as its web config) and closes it. */
function tlsModulesAfterStart(web: string): string[] {
  const script = `
    const { readFileSync } = await import('node:fs');
    const { startHttpServer } = await import(${JSON.stringify(server)});
    const s = await startHttpServer({ listen: { host: '127.0.0.1', port: 0 }, token: null, what: 't', routes: new Map(), web: ${web} });
    await s.close();
    console.log(JSON.stringify(process.moduleLoadList.filter((m) => /^NativeModule (https|tls)$/.test(m))));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_DIR,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

it('a plain HTTP server loads neither node:https nor node:tls', () => {
  assert.deepEqual(tlsModulesAfterStart('null'), []);
});

it('an HTTPS server loads them (the check above sees them when they are there)', {
  skip: skipUnlessTools('openssl'),
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-lean-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const certs = makeTestCerts(dir);
  const read = (path: string) => `readFileSync(${JSON.stringify(path)})`;
  const web = `{ file: 'web.yml', headers: {}, users: new Map(), tls: { cert: ${read(certs.serverCert)}, key: ${read(certs.serverKey)}, ca: null, clientAuth: 'NoClientCert', minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' } }`;
  assert.deepEqual(tlsModulesAfterStart(web).sort(), ['NativeModule https', 'NativeModule tls']);
});
