// The Kubernetes API server, as numakit k8s nrt uses it: one object read and written over
// HTTPS with the pod's service-account token (or http:// to a server on loopback, as the tests
// run one). Errors are one line naming the server, the request and the status.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { NumakitError } from '../model/errors.js';
import { readNamedFile } from '../runtime/named_file.js';

export interface ApiConnection {
  readonly server: string;
  readonly token: string | null;
  readonly ca: string | null;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function readOptional(file: string | undefined, fallback: string, what: string): string | null {
  if (file !== undefined) return readNamedFile(file, { label: `${what} ${file}` }).trim();
  try {
    return readFileSync(fallback, 'utf8').trim();
  } catch {
    return null;
  }
}

/** --server, else the in-cluster address; the service account's token and CA unless given. */
export function openConnection(o: { server?: string; tokenFile?: string; caFile?: string }): ApiConnection {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'] ?? '443';
  const server = o.server ?? (host ? `https://${host.includes(':') ? `[${host}]` : host}:${port}` : undefined);
  if (server === undefined)
    throw new NumakitError('k8s nrt: no API server: not in a pod (KUBERNETES_SERVICE_HOST unset) and no --server');
  if (!/^https?:\/\/[^/]+$/.test(server))
    throw new NumakitError(`k8s nrt: --server ${server}: expected https://HOST[:PORT]`);
  return {
    server,
    token: readOptional(o.tokenFile, `${SA_DIR}/token`, '--token-file'),
    ca: readOptional(o.caFile, `${SA_DIR}/ca.crt`, '--ca-file'),
  };
}

/** One request; resolves with the status and the parsed JSON body (null when none). */
export function apiRequest(
  c: ApiConnection,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
): Promise<ApiResponse> {
  const url = new URL(path, c.server);
  const data = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (c.token) headers['authorization'] = `Bearer ${c.token}`;
  if (data !== undefined) headers['content-type'] = 'application/json';
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method, headers, timeout: 15_000, ...(url.protocol === 'https:' && c.ca ? { ca: c.ca } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = text === '' ? null : JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', (e) => reject(new NumakitError(`k8s nrt: ${method} ${url.href}: ${e.message}`)));
    if (data !== undefined) req.write(data);
    req.end();
  });
}
