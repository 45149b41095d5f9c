// What --web.config.file decided, as plain data (src/serve/web_config.ts reads the file; this
// module loads no parser, so the start-up path of serve and agent --metrics without the option
// pays for none).
import type { SecureVersion } from 'node:tls';

export type ClientAuth =
  | 'NoClientCert'
  | 'RequestClientCert'
  | 'RequireAnyClientCert'
  | 'VerifyClientCertIfGiven'
  | 'RequireAndVerifyClientCert';

export interface WebTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer | null;
  readonly clientAuth: ClientAuth;
  readonly minVersion: SecureVersion;
  readonly maxVersion: SecureVersion;
}

export interface WebConfig {
  readonly file: string;
  readonly tls: WebTls | null;
  readonly headers: Readonly<Record<string, string>>;
  /** User -> bcrypt hash; empty: no basic auth. */
  readonly users: ReadonlyMap<string, string>;
}

/** True when every request must prove who it is (a password, or a client certificate the CA signed). */
export function webConfigAuthenticates(w: WebConfig): boolean {
  return w.users.size > 0 || w.tls?.clientAuth === 'RequireAndVerifyClientCert';
}

export function describeWebConfig(w: WebConfig): string {
  const parts = [w.tls ? `TLS (client certificates: ${w.tls.clientAuth})` : 'plain HTTP'];
  if (w.users.size > 0) parts.push(`basic auth (${w.users.size} user${w.users.size === 1 ? '' : 's'})`);
  return `${parts.join(', ')} from ${w.file}`;
}
