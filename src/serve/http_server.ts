// The HTTP server of `numakit serve` and `numakit agent --metrics`: read-only (GET and HEAD
// only, no request body), exact routes (anything else is 404: no path is ever mapped to a
// file), bounded requests (header size, time to send the headers and the whole request, idle
// keep-alive, connection count), an optional bearer token or --web.config.file (TLS, client
// certificates, bcrypt basic auth, headers), and a close() that drops every connection,
// half-sent requests included, so SIGTERM always ends the process.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { NumakitError } from '../model/errors.js';
import { tokenMatches } from './auth.js';
import type { BasicAuth } from './basic_auth.js';
import { formatAddress, type ListenAddress } from './listen.js';
import type { WebConfig, WebTls } from './web_access.js';

export interface Reply {
  readonly status?: number;
  readonly type: string;
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Route = (req: IncomingMessage, url: URL) => Reply | Promise<Reply>;

export interface Limits {
  /** Request line and headers together (Node's maxHeaderSize); larger: 431. */
  readonly maxHeaderBytes: number;
  /** Time to receive the headers; slower: 408 and the connection is closed. */
  readonly headersTimeoutMs: number;
  /** Time to receive the whole request. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /** How often Node checks the two timeouts above. */
  readonly checkIntervalMs: number;
  readonly maxConnections: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxHeaderBytes: 8192,
  headersTimeoutMs: 5000,
  requestTimeoutMs: 10000,
  keepAliveMs: 5000,
  checkIntervalMs: 500,
  maxConnections: 64,
};

export interface ServerOptions {
  readonly listen: ListenAddress;
  /** Required in Authorization (Bearer, or Basic's password) when set. */
  readonly token: string | null;
  /** --web.config.file: TLS, client certificates, basic_auth_users, headers. */
  readonly web?: WebConfig | null;
  readonly routes: ReadonlyMap<string, Route>;
  /** For messages: "serve", "agent --metrics". */
  readonly what: string;
  readonly limits?: Partial<Limits>;
  /** Called with a route's unexpected error (the client gets a 500). */
  readonly onError?: (e: unknown) => void;
  /** Called with one line for each TLS connection refused (handshake or client certificate). */
  readonly onRefused?: (line: string) => void;
}

export interface RunningServer {
  /** "127.0.0.1:10464" (the real port when 0 was asked). */
  readonly address: string;
  /** "http" or "https" (--web.config.file with tls_server_config). */
  readonly scheme: 'http' | 'https';
  readonly port: number;
  /** Replaces the bearer token (SIGHUP re-reads --token-file); null never turns it off. */
  setToken(token: string): void;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function send(res: ServerResponse, head: boolean, r: Reply, extra?: Readonly<Record<string, string>>): void {
  const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
  res.writeHead(r.status ?? 200, {
    ...SECURITY_HEADERS,
    ...extra,
    'Content-Type': r.type,
    'Content-Length': String(body.length),
    ...r.headers,
  });
  res.end(head ? undefined : body);
}

const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  type: 'text/plain; charset=utf-8',
  body: `${body}\n`,
  ...(headers ? { headers } : {}),
});

/** What to answer before any route runs: method, body, authorization, path. null = go on. */
export function screen(req: IncomingMessage, o: ServerOptions): Reply | null {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return text(405, 'read-only: GET and HEAD only', { Allow: 'GET, HEAD', Connection: 'close' });
  const len = req.headers['content-length'];
  if ((len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined)
    return text(413, 'no request body is accepted', { Connection: 'close' });
  if (o.token !== null && !tokenMatches(o.token, req.headers.authorization)) {
    return text(401, 'authorization required (Bearer token)', {
      'WWW-Authenticate': 'Basic realm="numakit", charset="UTF-8"',
    });
  }
  if (req.url === undefined || !req.url.startsWith('/')) return text(400, 'bad request target');
  return null;
}

const UNAUTHORIZED = text(401, 'authorization required (basic auth)', {
  'WWW-Authenticate': 'Basic realm="numakit", charset="UTF-8"',
});

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  o: ServerOptions,
  auth: BasicAuth | null,
): Promise<void> {
  const head = req.method === 'HEAD';
  const headers = o.web?.headers;
  const early =
    screen(req, o) ?? (auth !== null && !(await auth.check(req.headers.authorization)) ? UNAUTHORIZED : null);
  if (early !== null) return send(res, head, early, headers);
  const url = new URL(req.url!, 'http://numakit.invalid');
  const route = o.routes.get(url.pathname);
  if (route === undefined)
    return send(
      res,
      head,
      text(404, `not found: ${url.pathname.slice(0, 200)} (numakit ${o.what}: see / and /metrics)`),
      headers,
    );
  try {
    send(res, head, await route(req, url), headers);
  } catch (e) {
    o.onError?.(e);
    if (!res.headersSent) send(res, head, text(500, `numakit ${o.what}: internal error`), headers);
    else res.destroy();
  }
}

/** Node's TLS options for the toolkit's client_auth_type (the Go crypto/tls ClientAuthType names). */
function tlsOptions(t: WebTls) {
  return {
    cert: t.cert,
    key: t.key,
    ...(t.ca ? { ca: t.ca } : {}),
    minVersion: t.minVersion,
    maxVersion: t.maxVersion,
    requestCert: t.clientAuth !== 'NoClientCert',
    // Verified here, not by Node: a Node-refused certificate ends the socket with no event,
    // and the operator would never learn why a scrape fails (clientCertRefusal below).
    rejectUnauthorized: false,
  };
}

/**
 * Why the client's certificate does not pass client_auth_type (Go crypto/tls semantics), or
 * null: RequireAnyClientCert needs one, VerifyClientCertIfGiven refuses one the CA did not sign,
 * RequireAndVerifyClientCert needs one the CA signed, in its validity period. Checked once per
 * connection, before any request is read.
 */
function clientCertRefusal(t: WebTls, s: TLSSocket): string | null {
  const given = Object.keys(s.getPeerCertificate() ?? {}).length > 0;
  const bad = given && !s.authorized;
  const why = (e: string) => `${e} (client_auth_type ${t.clientAuth})`;
  // OpenSSL's verify code: CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...
  const error = () => String(s.authorizationError);
  switch (t.clientAuth) {
    case 'NoClientCert':
    case 'RequestClientCert':
      return null;
    case 'RequireAnyClientCert':
      return given ? null : why('no client certificate');
    case 'VerifyClientCertIfGiven':
      return bad ? why(`client certificate: ${error()}`) : null;
    case 'RequireAndVerifyClientCert':
      return !given ? why('no client certificate') : bad ? why(`client certificate: ${error()}`) : null;
  }
}

let accepted = 0;

/**
 * Connections accepted so far by every server of this process. libuv accepts one connection per
 * turn of the event loop and reads its request in a later turn, so a route that gathers the
 * requests arriving together (app.ts, batchedScrape) watches this to know more are on their way.
 */
export function connectionsAccepted(): number {
  return accepted;
}

/**
 * An HTTP server, or HTTPS when the web config has TLS: node:https (and with it node:tls) is
 * loaded only then, so a plain server starts without it.
 */
async function createListener(tls: WebTls | null, L: Limits, onRequest: RequestListener): Promise<Server> {
  const http = {
    maxHeaderSize: L.maxHeaderBytes,
    headersTimeout: L.headersTimeoutMs,
    requestTimeout: L.requestTimeoutMs,
    keepAliveTimeout: L.keepAliveMs,
    connectionsCheckingInterval: L.checkIntervalMs,
    requireHostHeader: false,
  };
  if (tls === null) return createServer(http, onRequest);
  // By require: a dynamic import() has no loader in the single executable.
  const { createServer: createTlsServer } = createRequire(import.meta.url)('node:https') as typeof import('node:https');
  return createTlsServer({ ...http, ...tlsOptions(tls) }, onRequest);
}

/**
 * A refused connection ends that connection only, and says why in one line (as node_exporter
 * logs "TLS handshake error"): under TLS 1.3 the client learns little more than a closed socket.
 */
function refuseBadClients(server: Server, tls: WebTls | null, o: ServerOptions): void {
  const refused = (s: TLSSocket, why: string) => {
    o.onRefused?.(`${o.what}: TLS connection from ${s.remoteAddress ?? '?'} refused: ${why}`);
    s.destroy();
  };
  if (tls)
    server.prependListener('secureConnection', (s: TLSSocket) => {
      const why = clientCertRefusal(tls, s);
      if (why !== null) refused(s, why);
    });
  server.on('tlsClientError', (e: NodeJS.ErrnoException, s: TLSSocket) =>
    refused(s, `${e.message}${e.code ? ` (${e.code})` : ''}`),
  );
}

/** Listens, or fails with one line saying why (address in use, permission, no such address). */
function listenOn(server: Server, o: ServerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new NumakitError(
          `${o.what}: cannot listen on ${formatAddress(o.listen)}: ${e.code === 'EADDRINUSE' ? 'address in use' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EADDRNOTAVAIL' ? 'no such address on this machine' : e.message}`,
        ),
      ),
    );
    server.listen(o.listen.port, o.listen.host, resolve);
  });
}

export async function startHttpServer(given: ServerOptions): Promise<RunningServer> {
  let o = given;
  const L = { ...DEFAULT_LIMITS, ...o.limits };
  const auth = o.web && o.web.users.size > 0 ? (await import('./basic_auth.js')).basicAuth(o.web.users) : null;
  const tls = o.web?.tls ?? null;
  // `o`, not `given`: setToken replaces it, and the next request sees the new token.
  const server = await createListener(tls, L, (req, res) => void handle(req, res, o, auth));
  refuseBadClients(server, tls, o);
  server.on('connection', () => void accepted++);
  server.maxConnections = L.maxConnections;
  // Sockets idle this long with a request half-read or never started are dropped too.
  server.setTimeout(L.requestTimeoutMs + L.checkIntervalMs, (socket: Socket) => socket.destroy());
  await listenOn(server, o);
  // A malformed request, headers over the limit or too slow: Node's own clientError answer
  // (400, 431, 408) and the socket is destroyed.
  const a = server.address();
  const port = typeof a === 'object' && a !== null ? a.port : o.listen.port;
  return {
    scheme: tls ? 'https' : 'http',
    address: formatAddress({ host: typeof a === 'object' && a !== null ? a.address : o.listen.host, port }),
    port,
    setToken: (token) => {
      if (o.token !== null) o = { ...o, token };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
