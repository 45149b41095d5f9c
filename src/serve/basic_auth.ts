// basic_auth_users of --web.config.file: "Authorization: Basic" checked against bcrypt hashes
// with bcryptjs (pure JS, no native build). bcrypt costs tens of milliseconds a check by
// design, and Prometheus sends the same credentials every scrape, so a pair once verified is
// remembered (by its SHA-256, never the password) for the life of the process, as the
// exporter toolkit does. An unknown user is checked against a dummy hash all the same, so the
// time taken does not tell which user names exist.
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';

let dummy: string | undefined;
/** Made at the first unknown user, not at import (a bcrypt hash costs tens of milliseconds). */
const dummyHash = () => (dummy ??= bcrypt.hashSync('numakit: no such user', 10));
const MAX_REMEMBERED = 256;

export interface BasicAuth {
  /** True when the header carries a user of the file and that user's password. */
  check(header: string | undefined): Promise<boolean>;
}

/** user:password from a Basic Authorization header, or null. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const m = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? null : { user: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

export function basicAuth(users: ReadonlyMap<string, string>): BasicAuth {
  const verified = new Set<string>();
  return {
    async check(header) {
      const c = basicCredentials(header);
      if (c === null) return false;
      const key = createHash('sha256').update(`${c.user}\0${c.password}`).digest('hex');
      if (verified.has(key)) return true;
      const hash = users.get(c.user);
      const ok = await bcrypt.compare(c.password, hash ?? dummyHash());
      if (!ok || hash === undefined) return false;
      if (verified.size >= MAX_REMEMBERED) verified.clear();
      verified.add(key);
      return true;
    },
  };
}
