// Certificates made with openssl at test time (nothing secret or expiring lives in the repo):
// a CA, a server certificate for 127.0.0.1 and localhost, a client certificate the CA signed,
// an expired one the CA signed, and one from another CA. EC P-256 keys: fast to make.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCerts {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly expiredCert: string;
  readonly expiredKey: string;
  readonly strangerCert: string;
  readonly strangerKey: string;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });
const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function selfSigned(cwd: string, name: string, cn: string): void {
  openssl(
    ['req', '-x509', ...KEY, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${cn}`],
    cwd,
  );
}

/** A key and a certificate for CN signed by CA (days < 0: already expired). */
function signed(cwd: string, name: string, cn: string, ca: string, days: number, ext?: string): void {
  openssl(['req', ...KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], cwd);
  const extArgs = ext === undefined ? [] : ['-extfile', ext];
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      String(days),
      '-out',
      `${name}.crt`,
      ...extArgs,
    ],
    cwd,
  );
}

export function makeTestCerts(dir: string): TestCerts {
  selfSigned(dir, 'ca', 'numakit test CA');
  selfSigned(dir, 'other-ca', 'some other CA');
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n',
  );
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage = clientAuth\n');
  signed(dir, 'server', 'localhost', 'ca', 2, 'server.ext');
  signed(dir, 'client', 'prometheus', 'ca', 2, 'client.ext');
  signed(dir, 'expired', 'prometheus', 'ca', -1, 'client.ext');
  signed(dir, 'stranger', 'prometheus', 'other-ca', 2, 'client.ext');
  const p = (f: string) => join(dir, f);
  return {
    dir,
    caCert: p('ca.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    clientCert: p('client.crt'),
    clientKey: p('client.key'),
    expiredCert: p('expired.crt'),
    expiredKey: p('expired.key'),
    strangerCert: p('stranger.crt'),
    strangerKey: p('stranger.key'),
  };
}
