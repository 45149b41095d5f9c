// The dashboard's files, read into memory once at start from the directory next to this
// module (src/serve/web, copied to dist/serve/web by the build), or in the single executable
// from its assets (web/NAME, put there by scripts/build-sea.mjs). Served by exact name only:
// no request path is ever joined to a directory, so nothing outside these files can be served.
import { readFileSync } from 'node:fs';
import { NumakitError } from '../model/errors.js';
import { assetBytes, sea } from '../runtime/sea_assets.js';
import type { Reply, Route } from './http_server.js';

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** Routes for the bundled files: "/" is index.html. */
export function assetRoutes(dir?: URL): Map<string, Route> {
  const fromExe = dir === undefined && sea() !== null;
  const from = dir ?? new URL('./web/', import.meta.url);
  const routes = new Map<string, Route>();
  for (const [name, type] of Object.entries(FILES)) {
    let body: Buffer;
    try {
      body = fromExe ? assetBytes(`web/${name}`) : readFileSync(new URL(name, from));
    } catch (e) {
      if (e instanceof NumakitError) throw e; // the executable's asset did not match its checksum
      throw new NumakitError(
        `serve: the dashboard file ${name} is missing from ${fromExe ? 'this executable' : from.pathname} (a build without 'npm run build'?)`,
      );
    }
    const reply: Reply = { type, body };
    routes.set(name === 'index.html' ? '/' : `/${name}`, () => reply);
  }
  return routes;
}
