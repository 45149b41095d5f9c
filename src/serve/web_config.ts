// --web.config.file: the web configuration file of the Prometheus exporter toolkit, the one
// node_exporter takes (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md),
// so one file and one set of habits serve both exporters on a host:
//   tls_server_config: cert_file, key_file, client_auth_type, client_ca_file, min_version, max_version
//   http_server_config: headers (the toolkit's five security headers)
//   basic_auth_users: user -> bcrypt hash
// Read and checked once at start (zod, strict like the toolkit's own UnmarshalStrict): a key
// numakit does not implement is an error naming it, never silently ignored. Relative paths are
// relative to the file's directory, as the toolkit's.
import { readFileSync } from 'node:fs';
import { checkNoOtherWriter, checkSecretFile } from '../runtime/private_path.js';
import { dirname, isAbsolute, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { NumakitError } from '../model/errors.js';
import type { ClientAuth, WebConfig, WebTls } from './web_access.js';

const CLIENT_AUTH: readonly [ClientAuth, ...ClientAuth[]] = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
];

const VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

/** The toolkit's header allow-list; X-Content-Type-Options and X-Frame-Options take fixed values. */
const HEADERS = {
  'Strict-Transport-Security': z.string().min(1),
  'X-Content-Type-Options': z.literal('nosniff'),
  'X-Frame-Options': z.enum(['deny', 'sameorigin', 'DENY', 'SAMEORIGIN']),
  'X-XSS-Protection': z.string().min(1),
  'Content-Security-Policy': z.string().min(1),
} as const;

// bcrypt's modular crypt format: $2a$/$2b$/$2y$, a two-digit cost, 53 characters of salt+hash.
const BCRYPT = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

const Schema = z
  .object({
    tls_server_config: z
      .object({
        cert_file: z.string().min(1),
        key_file: z.string().min(1),
        client_auth_type: z.enum(CLIENT_AUTH).optional(),
        client_ca_file: z.string().min(1).optional(),
        min_version: z.enum(Object.keys(VERSIONS) as [keyof typeof VERSIONS]).optional(),
        max_version: z.enum(Object.keys(VERSIONS) as [keyof typeof VERSIONS]).optional(),
      })
      .strict()
      .optional(),
    http_server_config: z
      .object({ headers: z.object(HEADERS).partial().strict().optional(), http2: z.boolean().optional() })
      .strict()
      .optional(),
    basic_auth_users: z
      .record(
        z.string().min(1),
        z.string().regex(BCRYPT, 'expected a bcrypt hash ($2y$10$... : htpasswd -nbBC 10 "" PASSWORD)'),
      )
      .optional(),
  })
  .strict()
  .nullable();

type Config = NonNullable<z.infer<typeof Schema>>;
type TlsConfig = NonNullable<Config['tls_server_config']>;

/** The file's YAML checked against the schema; the first problem as one line after `at`. */
function parseWebConfig(text: string, at: string): Config {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new NumakitError(`${at}: not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = Schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.');
    const msg =
      issue.code === 'unrecognized_keys'
        ? `unknown or unsupported key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
        : issue.message;
    throw new NumakitError(`${at}: ${where === '' ? '' : `${where}: `}${msg}`);
  }
  const c = parsed.data ?? {};
  if (c.http_server_config?.http2 === true)
    throw new NumakitError(`${at}: http_server_config.http2: numakit serves HTTP/1.1 only: set false or leave it out`);
  return c;
}

/** The settings that contradict each other (a CA with no client auth, verification with no CA, min > max). */
function checkTlsSettings(t: TlsConfig, at: string): void {
  const clientAuth = t.client_auth_type ?? 'NoClientCert';
  if (t.client_ca_file !== undefined && clientAuth === 'NoClientCert')
    throw new NumakitError(`${at}: client_ca_file is set but client_auth_type is NoClientCert (set one)`);
  if ((clientAuth === 'VerifyClientCertIfGiven' || clientAuth === 'RequireAndVerifyClientCert') && !t.client_ca_file)
    throw new NumakitError(`${at}: client_auth_type ${clientAuth} needs client_ca_file`);
  const order = Object.keys(VERSIONS);
  if (order.indexOf(t.min_version ?? 'TLS12') > order.indexOf(t.max_version ?? 'TLS13'))
    throw new NumakitError(`${at}: min_version is above max_version`);
}

/** The certificate, key and client CA read (paths relative to the config file's directory) and tried together. */
function loadTls(t: TlsConfig, file: string, at: string): WebTls {
  checkTlsSettings(t, at);
  const rel = (p: string) => (isAbsolute(p) ? p : join(dirname(file), p));
  const tls: WebTls = {
    cert: Buffer.from(readTrusted(rel(t.cert_file), `${at}.cert_file ${t.cert_file}`)),
    key: Buffer.from(
      readOrFail(rel(t.key_file), `${at}.key_file ${t.key_file}`, () =>
        checkSecretFile(rel(t.key_file), `${at}.key_file`),
      ),
    ),
    ca: t.client_ca_file ? Buffer.from(readTrusted(rel(t.client_ca_file), `${at}.client_ca_file`)) : null,
    clientAuth: t.client_auth_type ?? 'NoClientCert',
    minVersion: VERSIONS[t.min_version ?? 'TLS12'],
    maxVersion: VERSIONS[t.max_version ?? 'TLS13'],
  };
  try {
    // A key that does not match the certificate, or a file that is not PEM: said now, not at the first handshake.
    createSecureContext({ cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}) });
  } catch (e) {
    throw new NumakitError(`${at}: ${(e as Error).message}`);
  }
  return tls;
}

/** Reads, checks and loads FILE (and the certificate files it names) once, at start. */
export function readWebConfig(file: string, what = '--web.config.file'): WebConfig {
  // Who can replace the file, or a certificate it names, decides who gets in (a user, a client
  // CA): on a path only root or this user controls; the private key is a secret file.
  const text = readOrFail(file, `${what} ${file}`, () => checkNoOtherWriter(file, what));
  const c = parseWebConfig(text, `${what} ${file}`);
  return {
    file,
    tls: c.tls_server_config ? loadTls(c.tls_server_config, file, `${what} ${file}: tls_server_config`) : null,
    headers: Object.fromEntries(
      Object.entries(c.http_server_config?.headers ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    users: new Map(Object.entries(c.basic_auth_users ?? {})),
  };
}

/** A file on a path no other user controls. */
function readTrusted(path: string, what: string): string {
  return readOrFail(path, what, () => checkNoOtherWriter(path, what));
}

/** The file's text; `check` first (private_path.ts's rules); every failure one line naming `what`. */
function readOrFail(path: string, what: string, check?: () => void): string {
  try {
    check?.();
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof NumakitError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new NumakitError(
      `${what}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`,
    );
  }
}
