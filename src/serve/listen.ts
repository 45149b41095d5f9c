// Where numakit's HTTP servers listen, and who may ask. Loopback by default; any other address
// needs a bearer token (--token-file), a --web.config.file that authenticates every request
// (basic_auth_users, or client certificates the CA signed), or an explicit --insecure-public,
// and the start-up line says which (node_exporter binds every address by default; a NUMA
// exporter shows process names and pids, so it starts closed).
//
// The default port, 10464: 9464, numakit's first default, is the default port of
// OpenTelemetry's Prometheus exporter (OTEL_EXPORTER_PROMETHEUS_PORT), which an instrumented
// application on the same host would already hold; and the Prometheus project's default-port
// list for exporters (9100-9999) was reported full in 2023, so any number inside it is some
// registered exporter's. 10464 is outside both, below Linux's ephemeral range (32768-60999),
// and not in the services list Debian ships (netbase /etc/services); docs/serve.md.
import { isIP } from 'node:net';
import { UsageError } from '../model/errors.js';
import { webConfigAuthenticates, type WebConfig } from './web_access.js';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export const DEFAULT_PORT = 10464;
export const DEFAULT_LISTEN: ListenAddress = { host: '127.0.0.1', port: DEFAULT_PORT };

/** "127.0.0.1:10464", "[::1]:10464", "localhost:10464", ":10464" (all addresses), "0.0.0.0:10464". */
export function parseListen(text: string, what = '--listen'): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new UsageError(
      `${what} ${text}: expected ADDR:PORT (e.g. 127.0.0.1:${DEFAULT_PORT}, [::1]:${DEFAULT_PORT}, 0.0.0.0:${DEFAULT_PORT})`,
    );
  const v6 = m[1];
  if (v6 !== undefined && isIP(v6) !== 6) throw new UsageError(`${what} ${text}: '${v6}' is not an IPv6 address`);
  const host = v6 ?? (m[2] === '' ? '0.0.0.0' : m[2]!);
  return { host, port };
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

/** How a daemon spells its access options (serve's, or agent --metrics' metrics-* ones), for its messages. */
export interface AccessFlags {
  readonly token: string;
  readonly web: string;
  readonly insecure: string;
}

export const SERVE_FLAGS: AccessFlags = {
  token: '--token-file',
  web: '--web.config.file',
  insecure: '--insecure-public',
};

export type Access =
  | { readonly kind: 'loopback' }
  | { readonly kind: 'token'; readonly file: string }
  | { readonly kind: 'web'; readonly file: string }
  | { readonly kind: 'public' };

/** Decides the access mode, refusing a non-loopback address without a token or --insecure-public. */
export function decideAccess(
  addr: ListenAddress,
  o: {
    tokenFile?: string | undefined;
    insecurePublic?: boolean | undefined;
    web?: WebConfig | null | undefined;
    what?: string;
    flags?: AccessFlags;
  },
): Access {
  const what = o.what ?? 'serve';
  const f = o.flags ?? SERVE_FLAGS;
  if (o.tokenFile !== undefined && o.insecurePublic)
    throw new UsageError(`${what}: ${f.token} and ${f.insecure} cannot be used together`);
  if (o.tokenFile !== undefined && o.web && o.web.users.size > 0)
    throw new UsageError(
      `${what}: ${f.token} and basic_auth_users in ${o.web.file} cannot be used together: give one way to log in`,
    );
  if (o.tokenFile !== undefined) return { kind: 'token', file: o.tokenFile };
  if (o.web && webConfigAuthenticates(o.web)) return { kind: 'web', file: o.web.file };
  if (o.insecurePublic) return { kind: 'public' };
  if (!isLoopback(addr.host)) {
    throw new UsageError(
      `${what}: ${addr.host} is reachable from other machines: give ${f.token} FILE (a bearer token), ${f.web} FILE (basic_auth_users or verified client certificates) or ${f.insecure}`,
    );
  }
  return { kind: 'loopback' };
}

export function describeAccess(a: Access, f: AccessFlags = SERVE_FLAGS): string {
  switch (a.kind) {
    case 'loopback':
      return 'loopback only, no authentication';
    case 'token':
      return `bearer token from ${a.file} required`;
    case 'web':
      return `credentials required (${a.file})`;
    case 'public':
      return `OPEN TO ANY CLIENT THAT REACHES THIS ADDRESS, no authentication (${f.insecure})`;
  }
}

export function formatAddress(a: ListenAddress): string {
  return isIP(a.host) === 6 ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}
