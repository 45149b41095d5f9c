// The npm package as a user installs it: `npm pack`, then `npm install -g` of the tarball into an
// empty prefix with install scripts off (npm 11 runs none unless approved), and every kind of
// command from that install: koffi's prebuilt binary must load (run), the examples, the man page
// and the completion scripts must be there, and no devDependency may be needed.
// Run by `npm run test:dist` (CI), not by the unit suite: it takes about 40 s and the npm registry
// (or npm's cache, which `npm ci` fills).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};
let dir: string;
let prefix: string;
let files: string[];

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(cmd, args, { encoding: 'utf8', env, cwd: dir, timeout: 300_000 });
}

/** The installed command, with only the prefix's bin and node's own directory on PATH. */
function numakit(...args: string[]) {
  return sh(join(prefix, 'bin', 'numakit'), args, {
    PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: dir,
    LANG: 'C.UTF-8',
  });
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'numakit-pack-'));
  prefix = join(dir, 'prefix');
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: REPO_DIR,
    encoding: 'utf8',
    // The --json file list is over spawnSync's default 1 MiB buffer (the examples' files).
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(pack.status, 0, pack.error ? String(pack.error) : pack.stderr);
  const [info] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  files = info.files.map((f) => f.path);
  const install = sh('npm', [
    'install',
    '-g',
    '--prefix',
    prefix,
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    join(dir, info.filename),
  ]);
  assert.equal(install.status, 0, install.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the npm package', () => {
  it('holds the built code, examples, man page and completions; no sources or tests', () => {
    for (const f of [
      'dist/cli/bin.js',
      'dist/cli/numakit.cjs',
      'dist/cli/numakit.bundle.cjs',
      'dist/cli/numakit.bundle.cache',
      'dist/cli/numakit-run.bundle.cjs',
      'dist/cli/numakit-run.bundle.cache',
      'examples/spark-2s/manifest.json',
      'dist/share/man/man1/numakit.1',
      'dist/share/bash-completion/completions/numakit',
      'dist/cli/completion/commands.json',
      'dist/share/zsh/site-functions/_numakit',
      'dist/share/fish/vendor_completions.d/numakit.fish',
      'README.md',
    ]) {
      assert.ok(files.includes(f), f);
    }
    assert.deepEqual(
      files.filter((f) => /^(src|test|scripts|bench)\//.test(f)),
      [],
    );
  });

  it('installs no devDependency, and links the man page', () => {
    const modules = join(prefix, 'lib', 'node_modules', 'numakit', 'node_modules');
    for (const dev of Object.keys(pkg.devDependencies))
      assert.ok(!existsSync(join(modules, dev)), `${dev} is a devDependency`);
    assert.ok(existsSync(join(prefix, 'share', 'man', 'man1', 'numakit.1')));
  });

  it('runs: --version, topo on an example, doctor --json, help, completion', () => {
    assert.equal(numakit('--version').stdout, `numakit ${pkg.version}\n`);
    const topo = numakit('topo', '--example', 'spark-2s');
    assert.equal(topo.status, 0, topo.stderr);
    assert.match(topo.stdout, /^2 nodes, 2 packages/);
    const doctor = numakit('doctor', '--json');
    assert.ok(doctor.status === 0 || doctor.status === 1, doctor.stderr);
    assert.equal((JSON.parse(doctor.stdout) as { schemaVersion: number }).schemaVersion, 1);
    assert.match(numakit('completion', 'bash').stdout, /complete -F _numakit numakit/);
    assert.match(numakit('help', '--man').stdout, /^\.TH NUMAKIT 1/);
  });

  it("run loads koffi's prebuilt binary (no install script ran) and execs the command", () => {
    const r = numakit(
      'run',
      '--localalloc',
      '--',
      'sh',
      '-c',
      'grep -c " local " /proc/self/numa_maps >/dev/null && echo bound',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'bound\n');
  });
});
