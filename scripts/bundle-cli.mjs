#!/usr/bin/env node
// Build step after tsc (npm run build): the package's executable, dist/cli/numakit.cjs
// (src/cli/numakit.cjs), and what it runs:
//   dist/cli/numakit.bundle.cjs        src/cli/bin.ts and all it imports, one CommonJS file (esbuild);
//                                      koffi, yaml, zod and tar are required from node_modules when used
//                                      (in the bundle they would add 860 KB that every command reads)
//   dist/cli/numakit.bundle.cjs.map    its source map (used with NUMAKIT_DEBUG=1)
//   dist/cli/numakit.bundle.cache      V8's code cache of the bundle after running the commands
//                                      in CACHE_RUNS on the shipped examples
//   dist/cli/numakit-run.bundle.cjs    `numakit run`'s lean entry (src/cli/run_bin.ts) and what run's
//   dist/cli/numakit-run.bundle.cache  launch path imports, and its code cache (RUN_CACHE_RUNS): a
//                                      launch reads about a tenth of the program (src/cli/run_main.ts)
// Each module's import.meta.url becomes the URL of its file under dist/ (the bundle sits in
// dist/cli/), so workers, the dashboard's files and the examples are found where tsc put them.
// Why: the ES module loader costs about 0.3 ms of CPU per module (resolve, read, link); a code
// cache skips the compile of what it holds. docs/startup.md has the numbers.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const src = join(repo, 'src');
const out = join(repo, 'dist', 'cli');
const launcher = join(out, 'numakit.cjs');
const bundle = join(out, 'numakit.bundle.cjs');
const cache = join(out, 'numakit.bundle.cache');
const runBundle = join(out, 'numakit-run.bundle.cjs');

const PACKAGES = ['koffi', 'yaml', 'zod', 'tar'];

/**
 * Two rewrites of each source file, for a CommonJS bundle: import.meta.url of src/X/Y.ts becomes
 * the URL of dist/X/Y.js, computed from the bundle's own place; import('yaml') (a package left
 * out) or import('node:https') (a built-in loaded only when used; a type's `typeof import()` is
 * left alone) becomes require('yaml'), since import() in a script compiled with a code cache has
 * no loader to go to (V8's cache keeps no host options).
 */
const forCommonJs = {
  name: 'for-commonjs',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const rel = relative(src, args.path).replace(/\.ts$/, '.js');
      const contents = text
        .replaceAll('import.meta.url', `__numakitModuleUrl(${JSON.stringify(rel)})`)
        .replace(/(?<!typeof\s+)\bimport\((['"])([^'"]+)\1\)/g, (call, _q, name) =>
          PACKAGES.includes(name) || name.startsWith('node:')
            ? `Promise.resolve().then(() => require('${name}'))`
            : call,
        );
      return contents === text ? undefined : { contents, loader: 'ts' };
    });
  },
};

/**
 * In run's lean bundle, a module run loads with import() (other than the syscall layer) is a stub
 * that throws FullProgramOnly when it is first used: run reaches each before it changes anything,
 * and its entry then hands the command to the whole program (src/cli/run_main.ts).
 */
const LEAN_DYNAMIC = [join(src, 'native', 'index.ts')];
const fullProgramOnly = {
  name: 'full-program-only',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const path = join(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return LEAN_DYNAMIC.includes(path) ? undefined : { path: relative(src, path), namespace: 'full-program-only' };
    });
    b.onLoad({ filter: /.*/, namespace: 'full-program-only' }, (args) => ({
      contents: `const e = new Error('src/${args.path} is not in numakit run\\'s lean bundle'); e.name = 'FullProgramOnly'; throw e;`,
      loader: 'js',
    }));
  },
};

/** One bundle: `entry` and all it imports, its build id appended. */
async function bundleOf(entry, outfile, plugins) {
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile,
    external: PACKAGES,
    plugins,
    banner: {
      js: [
        "'use strict';", // the sources are ES modules: strict, as they are unbundled
        "var __numakitModuleUrl = (rel) => require('node:url').pathToFileURL(require('node:path').join(__dirname, '..', rel)).href;",
      ].join('\n'),
    },
    sourcemap: 'linked',
    sourcesContent: false,
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  // Any import() left (a package not in PACKAGES, a computed name) would fail at run time.
  const text = readFileSync(outfile, 'utf8');
  const leftover = text.match(/\bimport\(["'][^"']*["']\)/g);
  if (leftover)
    throw new Error(`${relative(repo, outfile)}: dynamic import() left in the bundle: ${leftover.join(', ')}`);
  // The build id ends the bundle and starts the cache: the launcher uses only a cache of its own build.
  const id = createHash('sha256').update(text).digest('hex');
  appendFileSync(outfile, `//# numakit-build=${id}\n`);
}

await bundleOf(join(src, 'cli', 'bin.ts'), bundle, [forCommonJs]);
await bundleOf(join(src, 'cli', 'run_bin.ts'), runBundle, [forCommonJs, fullProgramOnly]);
copyFileSync(join(src, 'cli', 'numakit.cjs'), launcher);
chmodSync(launcher, 0o755);

// The code cache: each run starts from the cache the one before wrote, so it ends up holding
// the functions any of them compiled. A run that fails fails the build.
const CACHE_RUNS = [
  ['--version'],
  ['--example', 'spark-2s'],
  ['--example', 'spark-2s', 'topo'],
  ['--example', 'spark-2s', 'topo', '--json'],
  ['--example', 'spark-2s', 'stat'],
  ['--example', 'spark-2s', 'stat', '-m'],
  ['--example', 'spark-2s', 'doctor'],
  ['--example', 'lab-2node-procs', 'stat', '--procs'],
  ['--example', 'spark-2s', 'plan', 'spark-standalone'],
  ['--example', 'spark-2s', 'apply', '--profile', 'database'],
  // run's parse, the machine it reads, koffi's binding and the policy calls (on this build
  // process only: --show prints instead of exec, which would end the run before its cache is
  // written). Where the kernel has no NUMA syscalls they exit 1 after compiling most of it.
  ['run', '--show'],
  ['run', '--localalloc', '--show'],
];
// run's lean bundle: its parse, the machine it reads, koffi's binding and the policy calls.
const RUN_CACHE_RUNS = [
  ['run', '--show'],
  ['run', '--localalloc', '--show'],
  ['run', '--membind', 'all', '--show'],
];
// NUMAKIT_CACHE_BUNDLE: which of the launcher's bundles (FULL or RUN) the run compiles and caches.
const MAKE_CACHE = `
const { writeFileSync } = require('node:fs');
const l = require(process.argv[1]); // node -e CODE LAUNCHER ARGS: argv is [node, LAUNCHER, ARGS]
const b = l[process.env.NUMAKIT_CACHE_BUNDLE];
const { source, id } = l.readBundle(b);
const script = l.compile(source, l.cachedDataFor(id, b), b);
process.on('exit', () => writeFileSync(b.cache, Buffer.concat([Buffer.from(id, 'latin1'), script.createCachedData()])));
l.run(script, b);`;
rmSync(cache, { force: true });
rmSync(join(out, 'numakit-run.bundle.cache'), { force: true });
for (const [which, args] of [...CACHE_RUNS.map((a) => ['FULL', a]), ...RUN_CACHE_RUNS.map((a) => ['RUN', a])]) {
  try {
    execFileSync(process.execPath, ['-e', MAKE_CACHE, launcher, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', NUMAKIT_CACHE_BUNDLE: which },
    });
  } catch (e) {
    // doctor exits 1 when it finds problems: that is a finished run.
    if (e.status !== 1)
      throw new Error(`numakit ${args.join(' ')} (code cache run) exited ${e.status}: ${String(e.stderr).trim()}`);
  }
}
