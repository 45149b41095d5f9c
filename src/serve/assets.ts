// The dashboard's files, read into memory once at start from the directory next to this
// module (src/serve/web, copied to dist/serve/web by the build). Served by exact name only:
// no request path is ever joined to a directory, so nothing outside these files can be served.
import { readFileSync } from 'node:fs';
import { NumakitError } from '../model/errors.js';
import type { Reply, Route } from './http_server.js';

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** Routes for the bundled files: "/" is index.html. */
export function assetRoutes(dir: URL = new URL('./web/', import.meta.url)): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const [name, type] of Object.entries(FILES)) {
    let body: Buffer;
    try {
      body = readFileSync(new URL(name, dir));
    } catch {
      throw new NumakitError(
        `serve: the dashboard file ${name} is missing from ${dir.pathname} (a build without 'npm run build'?)`,
      );
    }
    const reply: Reply = { type, body };
    routes.set(name === 'index.html' ? '/' : `/${name}`, () => reply);
  }
  return routes;
}
