// The package's executable, dist/cli/numakit.cjs, runs the one-file bundle with its code cache
// (scripts/bundle-cli.mjs): it must do exactly what dist/cli/bin.js (the same program unbundled)
// does, use the cache made for its own build and no other, and name the TypeScript sources in a
// stack trace with NUMAKIT_DEBUG. Run by `npm run test:dist` (after a build), not the unit suite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_DIR } from '../helpers/cli.js';

const CLI = join(REPO_DIR, 'dist', 'cli');
const pkg = JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')) as { bin: { numakit: string } };
const dir = mkdtempSync(join(tmpdir(), 'numakit-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(bin: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Launcher {
  readBundle(): { source: string; id: string };
  cachedDataFor(id: string): Buffer | undefined;
  compile(source: string, cachedData?: Buffer): { cachedDataRejected?: boolean };
  ID_LENGTH: number;
}

describe('the bundled executable', () => {
  it("is the package's bin", () => {
    assert.equal(pkg.bin.numakit, 'dist/cli/numakit.cjs');
  });

  // Each kind of thing the bundle changes: import.meta.url (examples, workers), packages left
  // outside (yaml for plan, tar for archives), lazy command modules, errors and exit codes.
  const archive = join(dir, 'spark.tar.gz');
  const cases: string[][] = [
    ['--version'],
    ['--example', 'spark-2s'],
    ['--example', 'spark-2s', 'topo', '--json'],
    ['--example', 'lab-2node-procs', 'stat', '--procs'],
    ['--example', 'vm-flat-32', 'doctor', '--json'],
    ['--example', 'spark-2s', 'plan', 'spark-standalone', '--json'],
    ['--example', 'spark-2s', 'plan', 'k8s'],
    ['--example', 'spark-2s', 'snapshot', archive],
    ['--root', archive, 'topo'],
    ['fleet', 'report', '--jobs', '2', archive, archive],
    ['examples'],
    ['topo', '--bogus'],
    ['--root', join(dir, 'missing.tar.gz'), 'topo'],
  ];
  it('prints, warns and exits exactly as dist/cli/bin.js', () => {
    for (const args of cases) {
      const bundled = run(join(REPO_DIR, pkg.bin.numakit), args);
      if (args.includes('snapshot')) rmSync(archive); // written again by the unbundled run
      const plain = run(join(CLI, 'bin.js'), args);
      assert.deepEqual(bundled, plain, `numakit ${args.join(' ')}`);
    }
  });

  it('compiles from the code cache of its own build, which this Node accepts', () => {
    const l = createRequire(import.meta.url)(join(CLI, 'numakit.cjs')) as Launcher;
    const { source, id } = l.readBundle();
    assert.match(id, /^[0-9a-f]{64}$/);
    const data = l.cachedDataFor(id);
    assert.ok(data !== undefined && data.length > 100_000, 'a cache of this build');
    assert.equal(l.compile(source, data).cachedDataRejected, false);
    assert.equal(l.cachedDataFor('0'.repeat(64)), undefined, 'a cache made for another build is not used');
  });

  it('runs as usual without its cache, or with a cache of another build', () => {
    // A copy of the package's layout: dist/cli/ with the launcher and the bundle, examples/ beside.
    const copy = join(mkdtempSync(join(dir, 'pkg-')), 'dist', 'cli');
    mkdirSync(copy, { recursive: true });
    symlinkSync(join(REPO_DIR, 'examples'), join(copy, '..', '..', 'examples'));
    for (const f of ['numakit.cjs', 'numakit.bundle.cjs']) copyFileSync(join(CLI, f), join(copy, f));
    const args = ['--example', 'spark-2s', 'topo'];
    const want = run(join(CLI, 'bin.js'), args);
    assert.equal(want.status, 0);
    assert.deepEqual(run(join(copy, 'numakit.cjs'), args), want);
    const cache = readFileSync(join(CLI, 'numakit.bundle.cache'));
    writeFileSync(join(copy, 'numakit.bundle.cache'), Buffer.concat([Buffer.from('f'.repeat(64)), cache.subarray(64)]));
    assert.deepEqual(run(join(copy, 'numakit.cjs'), args), want);
  });

  it('names the TypeScript source of an error with NUMAKIT_DEBUG=1', () => {
    const r = run(join(REPO_DIR, pkg.bin.numakit), ['--root', join(dir, 'missing.tar.gz'), 'topo'], {
      NUMAKIT_DEBUG: '1',
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /src\/sysfs\/snapshot_archive\.ts:\d+:\d+/);
  });
});
