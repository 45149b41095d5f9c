// A test's child process, bundled once into one plain .mjs (esbuild) so that each of many child
// processes (one per kill point) starts in a plain node in about 50 ms instead of through tsx
// (a second or more on a loaded 2-core machine). import.meta.url is the entry's own URL in the
// bundle, so paths relative to it and koffi (left outside, found from the repository) resolve
// as they do unbundled.
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ChildBundle {
  /** The .mjs to run with process.execPath. */
  readonly file: string;
  remove(): void;
}

export function bundleChild(entry: string): ChildBundle {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-child-'));
  const file = join(dir, 'child.mjs');
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    external: ['koffi'],
    logLevel: 'error',
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(entry).href) },
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
