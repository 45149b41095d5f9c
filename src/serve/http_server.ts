// The HTTP server of `numakit serve` and `numakit agent --metrics`: read-only (GET and HEAD
// only, no request body), exact routes (anything else is 404: no path is ever mapped to a
// file), bounded requests (header size, time to send the headers and the whole request, idle
// keep-alive, connection count), an optional bearer token, and a close() that drops every
// connection, half-sent requests included, so SIGTERM always ends the process.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { NumakitError } from '../model/errors.js';
import { tokenMatches } from './auth.js';
import { formatAddress, type ListenAddress } from './listen.js';

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
  readonly routes: ReadonlyMap<string, Route>;
  /** For messages: "serve", "agent --metrics". */
  readonly what: string;
  readonly limits?: Partial<Limits>;
  /** Called with a route's unexpected error (the client gets a 500). */
  readonly onError?: (e: unknown) => void;
}

export interface RunningServer {
  /** "127.0.0.1:9464" (the real port when 0 was asked). */
  readonly address: string;
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

function send(res: ServerResponse, head: boolean, r: Reply): void {
  const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
  res.writeHead(r.status ?? 200, {
    ...SECURITY_HEADERS,
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

async function handle(req: IncomingMessage, res: ServerResponse, o: ServerOptions): Promise<void> {
  const head = req.method === 'HEAD';
  const early = screen(req, o);
  if (early !== null) return send(res, head, early);
  const url = new URL(req.url!, 'http://numakit.invalid');
  const route = o.routes.get(url.pathname);
  if (route === undefined)
    return send(
      res,
      head,
      text(404, `not found: ${url.pathname.slice(0, 200)} (numakit ${o.what}: see / and /metrics)`),
    );
  try {
    send(res, head, await route(req, url));
  } catch (e) {
    o.onError?.(e);
    if (!res.headersSent) send(res, head, text(500, `numakit ${o.what}: internal error`));
    else res.destroy();
  }
}

export async function startHttpServer(given: ServerOptions): Promise<RunningServer> {
  let o = given;
  const L = { ...DEFAULT_LIMITS, ...o.limits };
  const server = createServer(
    {
      maxHeaderSize: L.maxHeaderBytes,
      headersTimeout: L.headersTimeoutMs,
      requestTimeout: L.requestTimeoutMs,
      keepAliveTimeout: L.keepAliveMs,
      connectionsCheckingInterval: L.checkIntervalMs,
      requireHostHeader: false,
    },
    (req, res) => void handle(req, res, o),
  );
  server.maxConnections = L.maxConnections;
  // Sockets idle this long with a request half-read or never started are dropped too.
  server.setTimeout(L.requestTimeoutMs + L.checkIntervalMs, (socket: Socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new NumakitError(
          `${o.what}: cannot listen on ${formatAddress(o.listen)}: ${e.code === 'EADDRINUSE' ? 'address in use' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EADDRNOTAVAIL' ? 'no such address on this machine' : e.message}`,
        ),
      ),
    );
    server.listen(o.listen.port, o.listen.host, resolve);
  });
  // A malformed request, headers over the limit or too slow: Node's own clientError answer
  // (400, 431, 408) and the socket is destroyed.
  const a = server.address();
  const port = typeof a === 'object' && a !== null ? a.port : o.listen.port;
  return {
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
