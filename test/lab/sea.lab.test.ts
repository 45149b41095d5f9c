// The single executable (npm run build:sea) on a server without Node: a 2-node guest whose node
// binary is deleted (its root is an overlay, so only the guest loses it) and whose PATH has no
// node. The executable is copied alone to /tmp and runs topo (equal to numactl --hardware),
// an example (unpacked from the executable), doctor, and run (koffi's native module unpacked
// to the cache and checked), which binds a command to node 1 like numactl does. On the host: a
// large machine's V8 flag, and what runs on worker threads or serves files (serve, fleet, bench mem).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sectionOk } from './assert.js';
import { shellQuote } from './guest.js';
import { runSections, type SectionsRun } from './sections.js';
import { REPO_ROOT } from './setup.js';
import { TWO_NODE } from './topologies.js';

const SEA = join(REPO_ROOT, 'dist', 'exe', `numakit-linux-${process.arch}`);
const PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

describe('the single executable in a guest without Node', () => {
  let run: SectionsRun;
  before(async () => {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-sea.mjs')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    run = await runSections(TWO_NODE, {
      nonode: `for n in $(type -ap node) /usr/bin/node /usr/local/bin/node; do rm -f "$n"; done; export ${PATH}; hash -r; command -v node || echo "no node"; cp ${shellQuote(SEA)} /tmp/numakit`,
      version: `export ${PATH}; /tmp/numakit --version`,
      numactl: 'numactl --hardware',
      topo: `export ${PATH}; /tmp/numakit topo --numactl`,
      example: `export ${PATH}; /tmp/numakit --example spark-2s topo`,
      doctor: `export ${PATH}; /tmp/numakit doctor --json >/dev/null; echo "exit $?"`,
      run: `export ${PATH}; /tmp/numakit run --cpunodebind=1 --membind=1 -- sh -c 'grep Cpus_allowed_list /proc/self/status; grep -c " bind:1 " /proc/self/numa_maps'`,
      cached: `ls -l "$HOME/.cache/numakit" | grep -c koffi`,
    });
  });
  after(() => run?.cleanup());

  it('runs with no node anywhere', () => {
    assert.match(sectionOk(run, 'nonode').stdout, /^no node$/m);
    assert.match(sectionOk(run, 'version').stdout, /^numakit \d+\.\d+\.\d+\n$/);
  });

  it('reads the guest like numactl --hardware', () => {
    assert.equal(
      sectionOk(run, 'topo').stdout.replace(/free: \d+ MB/g, 'free: N MB'),
      sectionOk(run, 'numactl').stdout.replace(/free: \d+ MB/g, 'free: N MB'),
    );
  });

  it('carries the examples and the doctor', () => {
    assert.match(sectionOk(run, 'example').stdout, /^2 nodes, 2 packages/);
    assert.match(sectionOk(run, 'doctor').stdout, /^exit [01]$/m);
  });

  // On a machine of 512 CPUs or more, topo and doctor set a V8 flag as they run (runtime/v8_flags.ts):
  // the executable must load node:v8 for it (it has no loader for a dynamic import()). Here on
  // the host: an example whose cpu/possible says 1,024 CPUs.
  it('topo and doctor on a machine of 1,024 possible CPUs', () => {
    const root = mkdtempSync(join(tmpdir(), 'numakit-sea-large-'));
    try {
      cpSync(join(REPO_ROOT, 'examples', 'lab-2node'), root, { recursive: true });
      writeFileSync(join(root, 'sys/devices/system/cpu/possible'), '0-1023\n');
      const sea = (cmd: string) => spawnSync(SEA, ['--root', root, cmd], { encoding: 'utf8' });
      const topo = sea('topo');
      assert.equal(topo.status, 0, topo.stderr);
      const bundle = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'bin.js'), '--root', root, 'topo'], {
        encoding: 'utf8',
      });
      assert.equal(topo.stdout, bundle.stdout);
      const doctor = sea('doctor');
      assert.ok(doctor.status === 0 || doctor.status === 1, doctor.stderr);
      assert.doesNotMatch(doctor.stderr, /internal error/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // What runs on a worker thread or serves files beside the modules: the executable carries each
  // worker's entry and the dashboard's files (scripts/build-sea.mjs). On the host, an example.
  it('serves the dashboard and doctor, runs fleet and bench mem workers', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'numakit-sea-cache-'));
    const env = { ...process.env, NUMAKIT_CACHE_DIR: join(cache, 'c') };
    const serve = spawn(SEA, ['--example', 'spark-2s', 'serve', '--listen', '127.0.0.1:0'], { env });
    try {
      let stderr = '';
      serve.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const [line] = (await Promise.race([
        once(serve.stdout.setEncoding('utf8'), 'data'),
        once(serve, 'exit').then(() => ['']),
      ])) as [string];
      const base = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0];
      assert.ok(base, `serve did not start: ${stderr}`);
      const page = await fetch(base);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /^<!doctype html>/i);
      // The first scrape starts doctor's first run on its worker; a later one serves its findings.
      let metrics = '';
      for (let i = 0; i < 50 && !/^numakit_doctor_findings\{/m.test(metrics); i++) {
        metrics = await (await fetch(`${base}metrics`)).text();
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.match(metrics, /^numakit_doctor_findings\{severity="\w+"\} \d+$/m);
      assert.doesNotMatch(metrics, /numakit_scrape_collector_success\{collector="doctor"\} 0/);

      for (const e of ['spark-2s', 'epyc-nps4'])
        execFileSync(SEA, ['--example', e, 'snapshot', join(cache, `${e}.tar.gz`)], { env, stdio: 'ignore' });
      const fleet = spawnSync(
        SEA,
        ['fleet', 'report', '--jobs', '2', join(cache, 'spark-2s.tar.gz'), join(cache, 'epyc-nps4.tar.gz')],
        { env, encoding: 'utf8' },
      );
      assert.equal(fleet.status, 0, fleet.stderr);
      assert.match(fleet.stdout, /^fleet report: 2 hosts/);

      const mem = spawnSync(
        SEA,
        ['bench', 'mem', '--only', 'bandwidth', '--size', '32M', '--seconds', '0.05', '--threads', '1', '--json'],
        { env, encoding: 'utf8' },
      );
      assert.equal(mem.status, 0, mem.stderr);
      assert.ok(JSON.parse(mem.stdout).schemaVersion >= 1);
    } finally {
      serve.kill();
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('loads koffi from itself and binds like numactl', () => {
    const out = sectionOk(run, 'run').stdout;
    assert.match(out, /^Cpus_allowed_list:\s+(\d+)(-\d+)?\n[1-9]\d*\n$/);
    assert.equal(sectionOk(run, 'cached').stdout.trim(), '1');
  });
});
