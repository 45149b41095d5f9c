// The single executable for aarch64, cross-built on this machine (scripts/build-sea.mjs --arch
// arm64: the linux-arm64 Node binary of this Node's version and koffi's arm64 build, fetched with
// npm pack) and run under qemu-user (Debian's qemu-user-static with the arm64 glibc and libstdc++
// of libc6-arm64-cross and libstdc++6-arm64-cross). It must carry the examples and koffi's arm64
// module, unpack that module to its cache, check it and make real syscalls through it
// (sched_setaffinity; qemu-user has no set_mempolicy, so memory binding is the lab's, on x86_64).
// Run by `npm run test:dist` (CI), not the unit suite.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_DIR } from '../helpers/cli.js';
import { toolsRequired } from '../helpers/tools.js';

const QEMU = '/usr/bin/qemu-aarch64-static';
const SYSROOT = '/usr/aarch64-linux-gnu';
const missing = [QEMU, join(SYSROOT, 'lib', 'ld-linux-aarch64.so.1'), join(SYSROOT, 'lib', 'libstdc++.so.6')].filter(
  (f) => !existsSync(f),
);
if (missing.length > 0 && toolsRequired())
  throw new Error(
    `${missing.join(', ')} missing: .ci/run installs qemu-user-static, libc6-arm64-cross and libstdc++6-arm64-cross`,
  );

describe('the aarch64 single executable under qemu-user', {
  skip: missing.length > 0 ? `${missing.join(', ')} missing (.ci/run installs them)` : false,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-sea-arm64-'));
  const cache = join(dir, 'cache');
  const exe = join(dir, 'numakit-linux-arm64');
  let built = '';
  before(() => {
    built = execFileSync(
      process.execPath,
      [join(REPO_DIR, 'scripts', 'build-sea.mjs'), '--arch', 'arm64', '--out', dir],
      { cwd: REPO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    mkdirSync(cache, { mode: 0o700 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // No node on PATH: the executable is Node.
  const run = (args: string[]) => {
    const r = spawnSync(QEMU, ['-L', SYSROOT, exe, ...args], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', NUMAKIT_CACHE_DIR: cache, NO_COLOR: '1' },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('is an aarch64 ELF built without a code cache', () => {
    const head = readFileSync(exe).subarray(0, 20);
    assert.equal(head.subarray(0, 4).toString('latin1'), '\x7fELF');
    assert.equal(head.readUInt16LE(18), 183, 'e_machine EM_AARCH64');
    assert.match(built, /linux-arm64, code cache off \(cross build\)/);
  });

  it('runs commands and carries the examples', () => {
    const v = run(['--version']);
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, /^numakit \d+\.\d+\.\d+\n$/);
    const t = run(['--example', 'spark-2s', 'topo']);
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^2 nodes, 2 packages, 32 cores, 64 threads/);
  });

  it("unpacks koffi's arm64 module to its cache and binds a command through it", () => {
    const r = run(['run', '--physcpubind=0', '--', 'sh', '-c', 'grep Cpus_allowed_list /proc/self/status']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Cpus_allowed_list:\s+0\n$/);
    const koffi = readdirSync(cache).filter((f) => f.endsWith('koffi-linux-arm64.node'));
    assert.equal(koffi.length, 1, readdirSync(cache).join(' '));
    assert.equal(readFileSync(join(cache, koffi[0]!)).readUInt16LE(18), 183);
  });
});
