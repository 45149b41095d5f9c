// The one listener rule of numakit's HTTP daemons (numakit serve, and numakit agent --metrics):
// the web config file read and checked, who may connect decided (loopback without credentials;
// any other address only with a bearer token, a web config that authenticates every request, or
// insecure-public said out loud), the token read, each secret file checked the way
// src/runtime/private_path.ts checks them. Each daemon spells the options its own way (flags).
import {
  decideAccess,
  describeAccess,
  SERVE_FLAGS,
  type Access,
  type AccessFlags,
  type ListenAddress,
} from './listen.js';
import { readTokenFile } from './auth.js';
import { describeWebConfig, type WebConfig } from './web_access.js';

export interface ListenerSettings {
  readonly listen: ListenAddress;
  readonly tokenFile?: string | undefined;
  readonly webConfigFile?: string | undefined;
  readonly insecurePublic?: boolean | undefined;
  /** Who listens, for messages: "serve", "agent --metrics". */
  readonly what: string;
  readonly flags?: AccessFlags;
}

export interface Listener {
  readonly access: Access;
  readonly web: WebConfig | null;
  /** The bearer token every request must carry, or null. */
  readonly token: string | null;
  /** For the start-up line: "loopback only, no authentication; TLS (...) from FILE". */
  readonly described: string;
}

/** Reads and checks what the settings name, and decides; throws a one-line error for anything wrong. */
export async function prepareListener(s: ListenerSettings): Promise<Listener> {
  const flags = s.flags ?? SERVE_FLAGS;
  // The parser (YAML, zod) loads only when the option is given: start-up pays for nothing else.
  const web =
    s.webConfigFile === undefined ? null : (await import('./web_config.js')).readWebConfig(s.webConfigFile, flags.web);
  const access = decideAccess(s.listen, {
    tokenFile: s.tokenFile,
    insecurePublic: s.insecurePublic,
    web,
    what: s.what,
    flags,
  });
  const token = access.kind === 'token' ? readTokenFile(access.file, flags.token) : null;
  const described = `${describeAccess(access, flags)}${web ? `; ${describeWebConfig(web)}` : ''}`;
  return { access, web, token, described };
}
