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
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

const BUNDLE = join(__dirname, 'numakit.bundle.cjs');
const CACHE = join(__dirname, 'numakit.bundle.cache');
const ID_LENGTH = 64; // the bundle's last line: "//# numakit-build=<64 hex digits>\n"

function readBundle() {
  const source = readFileSync(BUNDLE, 'utf8').replace(/^#!.*/, '');
  return { source, id: source.slice(-ID_LENGTH - 1, -1) };
}

/** The cache's V8 data when it was made from this very bundle. */
function cachedDataFor(id) {
  let cache;
  try {
    cache = readFileSync(CACHE);
  } catch {
    return undefined;
  }
  return cache.length > ID_LENGTH && cache.toString('latin1', 0, ID_LENGTH) === id
    ? cache.subarray(ID_LENGTH)
    : undefined;
}

/** The bundle as a script with CommonJS's wrapper (on its first line: line numbers unchanged). */
function compile(source, cachedData) {
  // No import() inside (scripts/bundle-cli.mjs refuses a bundle with one): a script compiled
  // from a code cache has no loader for it.
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: BUNDLE,
    cachedData,
  });
}

function run(script) {
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, BUNDLE, __dirname);
}

if (require.main !== module) {
  module.exports = { readBundle, cachedDataFor, compile, run, CACHE, ID_LENGTH }; // for scripts/bundle-cli.mjs and its test
} else if (process.env.NUMAKIT_DEBUG) {
  process.setSourceMapsEnabled(true);
  require(BUNDLE);
} else {
  const { source, id } = readBundle();
  run(compile(source, cachedDataFor(id)));
}
