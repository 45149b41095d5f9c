#!/usr/bin/env node
// The package's `numakit` executable (package.json "bin"; copied to dist/cli/ by
// scripts/bundle-cli.mjs). It runs dist/cli/numakit.bundle.cjs: src/cli/bin.ts and every module
// it imports in one CommonJS file, compiled with the V8 code cache made at build time
// (numakit.bundle.cache). One file read instead of the ES module loader's resolve, read and link
// of each of 30-100 modules, and no compile of what the cache holds: docs/startup.md has the
// numbers. dist/cli/bin.js, the same program unbundled, still runs as before.
//
// The cache starts with the build id that ends the bundle (the SHA-256 of its text): a cache of
// another build is not used. One that does not fit this Node (another V8 version or flags) is
// rejected by V8; either way the bundle is compiled as usual. With NUMAKIT_DEBUG set the bundle
// is loaded by require() with source maps on, so a stack trace names the TypeScript sources.
//
// `numakit run ...` starts from a second, small bundle (numakit-run.bundle.cjs with its own
// cache: src/cli/run_main.ts), so that a launch pays for run's code only; what run's launch path
// does not cover it hands back to runFull() below, with the same argv.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

const FULL = { bundle: join(__dirname, 'numakit.bundle.cjs'), cache: join(__dirname, 'numakit.bundle.cache') };
const RUN = { bundle: join(__dirname, 'numakit-run.bundle.cjs'), cache: join(__dirname, 'numakit-run.bundle.cache') };
const BUNDLE = FULL.bundle;
const CACHE = FULL.cache;
const ID_LENGTH = 64; // the bundle's last line: "//# numakit-build=<64 hex digits>\n"

function readBundle(b = FULL) {
  const source = readFileSync(b.bundle, 'utf8').replace(/^#!.*/, '');
  return { source, id: source.slice(-ID_LENGTH - 1, -1) };
}

/** The cache's V8 data when it was made from this very bundle. */
function cachedDataFor(id, b = FULL) {
  let cache;
  try {
    cache = readFileSync(b.cache);
  } catch {
    return undefined;
  }
  return cache.length > ID_LENGTH && cache.toString('latin1', 0, ID_LENGTH) === id
    ? cache.subarray(ID_LENGTH)
    : undefined;
}

/** The bundle as a script with CommonJS's wrapper (on its first line: line numbers unchanged). */
function compile(source, cachedData, b = FULL) {
  // No import() inside (scripts/bundle-cli.mjs refuses a bundle with one): a script compiled
  // from a code cache has no loader for it.
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: b.bundle,
    cachedData,
  });
}

function run(script, b = FULL) {
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, b.bundle, __dirname);
}

/** Runs a bundle (the whole program by default) on this process's argv. */
function runBundle(b = FULL) {
  const { source, id } = readBundle(b);
  run(compile(source, cachedDataFor(id, b), b), b);
}

/** The whole program: run's lean entry calls it for what only the whole program does. */
function runFull() {
  if (process.env.NUMAKIT_DEBUG) {
    process.setSourceMapsEnabled(true);
    require(BUNDLE);
  } else runBundle(FULL);
}

// For scripts/bundle-cli.mjs and its test, and for run's lean entry (runFull).
module.exports = { readBundle, cachedDataFor, compile, run, runFull, FULL, RUN, CACHE, ID_LENGTH };

if (require.main === module) {
  if (process.argv[2] === 'run' && !process.env.NUMAKIT_DEBUG) runBundle(RUN);
  else runFull();
}
