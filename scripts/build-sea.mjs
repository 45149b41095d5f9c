#!/usr/bin/env node
// npm run build:sea: numakit as one executable file (Node's single executable application).
//   1. esbuild bundles src/cli/bin.ts and its dependencies (yaml, zod, tar) into one CommonJS
//      script; koffi stays out (a native module cannot be bundled).
//   2. Assets: koffi's native module for each architecture found (node_modules/@koromix/
//      koffi-linux-x64, -arm64) and the example machines (examples.json), with their SHA-256
//      in the bundle; at run time they are written to a private cache and checked (src/sea/).
//   3. node --experimental-sea-config writes the blob (with V8's code cache: measured in
//      bench/sea.mjs), postject injects it into a copy of this Node binary.
// Output: dist/exe/numakit-linux-<arch> (not dist/sea: that is src/sea compiled, which the npm
// package's dist/native loads; emptying it broke every later native call). Options: --no-code-cache,
// --out DIR.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const outAt = process.argv.indexOf('--out');
const out = outAt > 0 ? process.argv[outAt + 1] : join(repo, 'dist', 'exe');
const codeCache = !process.argv.includes('--no-code-cache');
if (out === undefined || out.startsWith('--')) {
  console.error('build-sea: --out needs a directory');
  process.exit(2);
}
// The output directory is emptied first: never the compiled tree, a part of it, or anything
// holding it (under dist/ only dist/exe is ours).
const dist = join(repo, 'dist');
const inside = (a, b) => !relative(a, b).startsWith('..'); // b is a or under a
if (inside(resolve(out), dist) || (inside(dist, resolve(out)) && resolve(out) !== join(dist, 'exe'))) {
  console.error(`build-sea: --out ${out} would empty numakit's compiled code (${dist}); use dist/exe or a directory outside dist/`);
  process.exit(2);
}
const sha256 = (b) => createHash('sha256').update(b).digest('hex');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// Assets: koffi's glibc builds, and the examples as one JSON file (symlinks kept).
const assets = {};
const hashes = {};
for (const arch of ['x64', 'arm64']) {
  const file = join(repo, 'node_modules', '@koromix', `koffi-linux-${arch}`, `linux_${arch}`, 'koffi.node');
  if (!existsSync(file)) continue;
  const key = `koffi/linux_${arch}/koffi.node`;
  assets[key] = file;
  hashes[key] = sha256(readFileSync(file));
}
if (hashes[`koffi/linux_${process.arch}/koffi.node`] === undefined) throw new Error(`no koffi build for linux ${process.arch} in node_modules/@koromix`);

function walk(dir, entries = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const rel = relative(join(repo, 'examples'), p);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) entries.push([rel, 'l', readlinkSync(p)]);
    else if (st.isDirectory()) {
      entries.push([rel, 'd']);
      walk(p, entries);
    }
    else entries.push([rel, 'f', readFileSync(p).toString('base64')]);
  }
  return entries;
}
const examples = JSON.stringify(walk(join(repo, 'examples')));
writeFileSync(join(out, 'examples.json'), examples);
assets['examples.json'] = join(out, 'examples.json');
hashes['examples.json'] = sha256(Buffer.from(examples));

// The bundle. import.meta.url becomes the executable's file URL (no module file exists).
await build({
  entryPoints: [join(repo, 'src', 'cli', 'bin.ts')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: join(out, 'numakit.cjs'),
  external: ['koffi'],
  define: { 'import.meta.url': '__numakitUrl' },
  banner: {
    js: [
      "globalThis.__numakitSea = require('node:sea');",
      `globalThis.__numakitSeaAssets = ${JSON.stringify(hashes)};`,
      "var __numakitUrl = require('node:url').pathToFileURL(process.execPath).href;",
    ].join('\n'),
  },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// The blob, then the executable.
const config = join(out, 'sea-config.json');
writeFileSync(config, JSON.stringify({ main: join(out, 'numakit.cjs'), output: join(out, 'numakit.blob'), disableExperimentalSEAWarning: true, useCodeCache: codeCache, assets }, null, 2));
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
const exe = join(out, `numakit-linux-${process.arch}`);
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
execFileSync(process.execPath, [postject, exe, 'NODE_SEA_BLOB', join(out, 'numakit.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: ['ignore', 'ignore', 'inherit'] });
for (const f of ['numakit.blob', 'sea-config.json', 'examples.json']) rmSync(join(out, f));
console.log(`${relative(repo, exe)}: ${(lstatSync(exe).size / 2 ** 20).toFixed(1)} MiB (Node ${process.version}, code cache ${codeCache ? 'on' : 'off'}; koffi for ${Object.keys(hashes).filter((k) => k.startsWith('koffi')).map((k) => k.split('/')[1]).join(', ')})`);
