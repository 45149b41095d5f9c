#!/usr/bin/env node
// npm run build:sea: numakit as one executable file (Node's single executable application).
//   1. esbuild bundles src/cli/bin.ts and its dependencies (yaml, zod, tar) into one CommonJS
//      script; koffi stays out (a native module cannot be bundled).
//   2. Assets: koffi's native module for each architecture found (node_modules/@koromix/
//      koffi-linux-x64, -arm64), the example machines (examples.json), the dashboard's files
//      (web/NAME) and each worker thread's entry bundled on its own like the CLI (workers/NAME.cjs),
//      with their SHA-256 in the bundle; at run time they are written to a private cache and
//      checked (src/runtime/sea_assets.ts, sea_worker.ts), or the dashboard's read in memory.
//   3. node --experimental-sea-config writes the blob (with V8's code cache: measured in
//      bench/sea.mjs), postject injects it into a copy of this Node binary.
// Output: dist/exe/numakit-linux-<arch> (not dist/runtime: that is src/runtime compiled, which the npm
// package's dist/native loads; emptying it broke every later native call). Options: --no-code-cache,
// --out DIR, --arch x64|arm64 (default: this machine's), --node FILE, --snapshot (a V8 startup
// snapshot instead of the code cache: for bench/sea.mjs only, see src/cli/snapshot_main.ts).
// Another architecture (cross build): the executable is that architecture's Node binary of exactly
// this Node's version (--node FILE, else `npm pack node-linux-<arch>@<version>`, checked by npm
// against the registry's integrity hash) and koffi's build for it (node_modules/@koromix, else
// `npm pack @koromix/koffi-linux-<arch>@<koffi's version>`), both kept in
// node_modules/.cache/numakit-sea. The blob is the same format on every architecture, but V8's code
// cache is not portable: a cross build has none (Node refuses useCodeCache when cross-building).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const optionValue = (name) => {
  const at = process.argv.indexOf(name);
  if (at < 0) return undefined;
  const v = process.argv[at + 1];
  if (v === undefined || v.startsWith('--')) {
    console.error(`build-sea: ${name} needs a value`);
    process.exit(2);
  }
  return v;
};
const out = optionValue('--out') ?? join(repo, 'dist', 'exe');
const arch = optionValue('--arch') ?? process.arch;
if (arch !== 'x64' && arch !== 'arm64') {
  console.error(`build-sea: --arch ${arch}: numakit builds for x64 and arm64 (Linux, glibc)`);
  process.exit(2);
}
const cross = arch !== process.arch;
const snapshot = process.argv.includes('--snapshot');
if (snapshot && cross) {
  console.error('build-sea: --snapshot: a startup snapshot cannot be cross-built');
  process.exit(2);
}
const codeCache = !process.argv.includes('--no-code-cache') && !cross && !snapshot;
// The output directory: never the compiled tree, a part of it, or anything holding it (under dist/
// only dist/exe is ours). Only this build's own files in it are replaced.
const dist = join(repo, 'dist');
const inside = (a, b) => !relative(a, b).startsWith('..'); // b is a or under a
if (inside(resolve(out), dist) || (inside(dist, resolve(out)) && resolve(out) !== join(dist, 'exe'))) {
  console.error(
    `build-sea: --out ${out} would write into numakit's compiled code (${dist}); use dist/exe or a directory outside dist/`,
  );
  process.exit(2);
}
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

// A cross build's inputs: an npm package's file, fetched once into the cache (npm checks the
// tarball against the registry's integrity hash).
const fetchCache = join(repo, 'node_modules', '.cache', 'numakit-sea');
function fromNpm(spec, member) {
  const dir = join(fetchCache, spec.replace(/[@/]/g, '_'));
  const file = join(dir, member);
  if (existsSync(file)) return file;
  console.log(`build-sea: fetching ${spec} (npm pack)`);
  // Unpacked beside the cache entry and renamed into it: an interrupted fetch leaves no half file.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const tgz = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', tmp], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', join(tmp, tgz), '-C', tmp, '--strip-components=1', `package/${member}`]);
    mkdirSync(dirname(file), { recursive: true });
    renameSync(join(tmp, member), file);
  } catch {
    console.error(
      `build-sea: could not fetch ${spec} from npm (offline, or no such version?): give the Node binary with --node FILE; koffi's comes from node_modules/@koromix when installed`,
    );
    process.exit(1);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return file;
}
// koffi pins its per-platform packages (optionalDependencies) to its own version.
function koffiPin(arch) {
  const koffi = JSON.parse(readFileSync(join(repo, 'node_modules', 'koffi', 'package.json'), 'utf8'));
  return koffi.optionalDependencies?.[`@koromix/koffi-linux-${arch}`] ?? koffi.version;
}
const installedKoffi = join(repo, 'node_modules', '@koromix', `koffi-linux-${arch}`);
const koffiFile = existsSync(join(installedKoffi, `linux_${arch}`, 'koffi.node'))
  ? join(installedKoffi, `linux_${arch}`, 'koffi.node')
  : fromNpm(`@koromix/koffi-linux-${arch}@${koffiPin(arch)}`, `linux_${arch}/koffi.node`);
if (optionValue('--node') !== undefined && !cross) {
  console.error(
    `build-sea: --node is for a cross build (--arch): a ${arch} build uses this Node (${process.execPath})`,
  );
  process.exit(2);
}
const nodeBinary = !cross
  ? process.execPath
  : (optionValue('--node') ?? fromNpm(`node-linux-${arch}@${process.version.slice(1)}`, 'bin/node'));

mkdirSync(out, { recursive: true });
const work = join(out, `.build-${arch}`); // the bundle, blob and config of this build, removed at the end
rmSync(work, { recursive: true, force: true });
mkdirSync(work);

// Assets: koffi's glibc build for the target, and the examples as one JSON file (symlinks kept).
const assets = { [`koffi/linux_${arch}/koffi.node`]: koffiFile };
const hashes = { [`koffi/linux_${arch}/koffi.node`]: sha256(readFileSync(koffiFile)) };

function walk(dir, entries = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const rel = relative(join(repo, 'examples'), p);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) entries.push([rel, 'l', readlinkSync(p)]);
    else if (st.isDirectory()) {
      entries.push([rel, 'd']);
      walk(p, entries);
    } else entries.push([rel, 'f', readFileSync(p).toString('base64')]);
  }
  return entries;
}
const examples = JSON.stringify(walk(join(repo, 'examples')));
writeFileSync(join(work, 'examples.json'), examples);
assets['examples.json'] = join(work, 'examples.json');
hashes['examples.json'] = sha256(Buffer.from(examples));

// The dashboard's files, served from memory (src/serve/assets.ts).
for (const name of readdirSync(join(repo, 'src', 'serve', 'web')).sort()) {
  assets[`web/${name}`] = join(repo, 'src', 'serve', 'web', name);
  hashes[`web/${name}`] = sha256(readFileSync(assets[`web/${name}`]));
}

// A script of the executable: one CommonJS file of ENTRY and all it imports (koffi aside, an asset).
// import.meta.url becomes the executable's file URL (no module file exists). HASHES: the manifest
// its banner carries (a worker loads koffi through it too).
const bundle = (entry, outfile, manifest) =>
  build({
    entryPoints: [join(repo, 'src', entry)],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile,
    external: ['koffi'],
    define: { 'import.meta.url': '__numakitUrl' },
    banner: {
      js: [
        "globalThis.__numakitSea = require('node:sea');",
        `globalThis.__numakitSeaAssets = ${JSON.stringify(manifest)};`,
        "var __numakitUrl = require('node:url').pathToFileURL(process.execPath).href;",
      ].join('\n'),
    },
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
  });

// The worker threads' entries (src/runtime/sea_worker.ts names them): each needs a file to start
// from, which the executable writes to the cache when it first starts that worker.
const WORKERS = {
  doctor_worker: 'serve/doctor_worker.ts',
  mem_worker: 'bench/mem_worker.ts',
  fleet_worker: 'fleet/worker.ts',
};
const workerManifest = { ...hashes };
for (const [name, entry] of Object.entries(WORKERS)) {
  const file = join(work, `${name}.cjs`);
  await bundle(entry, file, workerManifest);
  assets[`workers/${name}.cjs`] = file;
  hashes[`workers/${name}.cjs`] = sha256(readFileSync(file));
}

// The executable's own script.
await bundle(snapshot ? 'cli/snapshot_main.ts' : 'cli/bin.ts', join(work, 'numakit.cjs'), hashes);

// The blob, then the executable.
const config = join(work, 'sea-config.json');
writeFileSync(
  config,
  JSON.stringify(
    {
      main: join(work, 'numakit.cjs'),
      output: join(work, 'numakit.blob'),
      disableExperimentalSEAWarning: true,
      useCodeCache: codeCache,
      useSnapshot: snapshot,
      assets,
    },
    null,
    2,
  ),
);
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
const exe = join(out, `numakit-linux-${arch}`);
rmSync(exe, { force: true });
copyFileSync(nodeBinary, exe);
chmodSync(exe, 0o755);
const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
execFileSync(
  process.execPath,
  [
    postject,
    exe,
    'NODE_SEA_BLOB',
    join(work, 'numakit.blob'),
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
rmSync(work, { recursive: true, force: true });
const shown = (f) => (inside(repo, f) ? relative(repo, f) : f);
console.log(
  `${shown(exe)}: ${(lstatSync(exe).size / 2 ** 20).toFixed(1)} MiB (Node ${process.version} linux-${arch}, ${snapshot ? 'startup snapshot' : `code cache ${codeCache ? 'on' : cross ? 'off (cross build)' : 'off'}`}; koffi ${shown(koffiFile)})`,
);
