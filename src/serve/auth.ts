// The bearer token of --token-file: read once at start, compared in constant time. Prometheus
// sends it as "Authorization: Bearer TOKEN" (scrape_config authorization.credentials_file); a
// browser, which cannot add that header to a page load, answers the Basic challenge with any
// user name and the token as password.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkSecretFile } from '../runtime/private_path.js';
import { NumakitError } from '../model/errors.js';
import type { Access } from './listen.js';

const MAX_TOKEN_FILE = 4096;

/** `what`: the option as the daemon spells it (--token-file, --metrics-token-file), for its messages. */
export function readTokenFile(path: string, what = '--token-file'): string {
  let text: string;
  try {
    // Refused when other users can read or replace it (private_path.ts).
    if (checkSecretFile(path, what) > MAX_TOKEN_FILE)
      throw new NumakitError(`${what} ${path}: larger than ${MAX_TOKEN_FILE} bytes: not a token`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof NumakitError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new NumakitError(
      `${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`,
    );
  }
  const token = text.trim();
  if (token.length < 16 || /\s/.test(token))
    throw new NumakitError(`${what} ${path}: expected one token of at least 16 characters without spaces`);
  return token;
}

const digest = (t: string) => createHash('sha256').update(t).digest();

/** The token an Authorization header carries (Bearer, or Basic's password), or null. */
export function presentedToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header);
  if (!m) return null;
  if (m[1]!.toLowerCase() === 'bearer') return m[2]!;
  const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? null : decoded.slice(i + 1);
}

export function tokenMatches(expected: string, header: string | undefined): boolean {
  const got = presentedToken(header);
  return got !== null && timingSafeEqual(digest(got), digest(expected));
}

/**
 * What SIGHUP does, as the line it logs: the token file is read again (a bad one keeps the token
 * in use and says why); settings are read only at start and output goes to stdout and stderr, so
 * there is nothing else to reload or reopen. Without a handler SIGHUP ended the daemon.
 */
export function reloadToken(access: Access, server: { setToken(token: string): void }, what = '--token-file'): string {
  if (access.kind !== 'token') return `nothing to reload (no ${what}; settings are read at start)`;
  try {
    server.setToken(readTokenFile(access.file, what));
    return `token re-read from ${access.file}`;
  } catch (e) {
    return `${(e as Error).message}; the token in use is kept`;
  }
}
