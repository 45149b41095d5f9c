// numakit snapshot: what it copies is enough for every reader, links survive, archives work,
// per-process data only on request and command lines redacted by default.
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { redactCmdline, unreadableNote } from '../../../src/cli/commands/snapshot.js';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { runMain } from '../../helpers/cli.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'numakit-snap-test-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('numakit snapshot', () => {
  for (const name of ['spark-2s', 'cxl-3node']) {
    it(`a snapshot of ${name} reads back as the same topology (dir and .tar.gz)`, async () => {
      const src = join(EXAMPLES_DIR, name);
      const want = await runMain(['--root', src, 'topo', '--json']);
      const dir = join(tmp(), 'snap');
      assert.equal((await runMain(['--root', src, 'snapshot', dir])).code, 0);
      assert.equal((await runMain(['--root', dir, 'topo', '--json'])).out, want.out);
      const tgz = join(tmp(), 'snap.tar.gz');
      assert.equal((await runMain(['--root', src, 'snapshot', tgz])).code, 0);
      assert.equal((await runMain(['--root', tgz, 'topo', '--json'])).out, want.out);
    });
  }

  it('keeps sysfs links relative and copies only what was read', async () => {
    const dir = join(tmp(), 'snap');
    await runMain(['--example', 'spark-2s', 'snapshot', dir]);
    assert.equal(readlinkSync(join(dir, 'sys/class/net/ens1f0')), '../../devices/pci0000:00/0000:3b:00.0/net/ens1f0');
    assert.ok(existsSync(join(dir, 'sys/devices/pci0000:00/0000:3b:00.0/numa_node')));
    // rx queue knobs are not read by any collector: they are not copied
    assert.equal(existsSync(join(dir, 'sys/devices/pci0000:00/0000:3b:00.0/net/ens1f0/queues/tx-0/xps_cpus')), false);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    assert.equal(manifest.synthetic, false);
    assert.equal(manifest.processes, false);
  });

  it('leaves /proc/PID out unless --processes, and redacts command lines', async () => {
    const src = tmp();
    await runMain(['--example', 'spark-2s', 'snapshot', join(src, 'base')]);
    const root = join(src, 'base');
    mkdirSync(join(root, 'proc/4242'), { recursive: true });
    writeFileSync(join(root, 'proc/4242/cmdline'), 'java\0-Dpassword=hunter2\0-jar\0app.jar\0');
    writeFileSync(join(root, 'proc/4242/comm'), 'java\n');
    writeFileSync(
      join(root, 'proc/4242/status'),
      'Name:\tjava\nState:\tS (sleeping)\nPid:\t4242\nVmRSS:\t  1024 kB\nCpus_allowed_list:\t0-63\nMems_allowed_list:\t0-1\n',
    );
    const plain = join(tmp(), 'plain');
    assert.equal((await runMain(['--root', root, 'snapshot', plain])).code, 0);
    assert.equal(existsSync(join(plain, 'proc/4242')), false);
    const withProcs = join(tmp(), 'procs');
    assert.equal((await runMain(['--root', root, 'snapshot', withProcs, '--processes'])).code, 0);
    assert.equal(readFileSync(join(withProcs, 'proc/4242/cmdline'), 'utf8'), 'java\0REDACTED\0REDACTED\0REDACTED\0');
    const full = join(tmp(), 'full');
    await runMain(['--root', root, 'snapshot', full, '--processes', '--no-redact']);
    assert.match(readFileSync(join(full, 'proc/4242/cmdline'), 'utf8'), /hunter2/);
  });

  it('carries the limits of the process taking it as proc/self/{cgroup,status}, never as a process (proc/self a link to its pid, as in /proc)', async () => {
    const root = join(tmp(), 'root');
    await runMain(['--example', 'spark-2s', 'snapshot', root]);
    mkdirSync(join(root, 'proc/4242'), { recursive: true });
    rmSync(join(root, 'proc/self'), { recursive: true, force: true });
    symlinkSync('4242', join(root, 'proc/self'));
    writeFileSync(join(root, 'proc/4242/cgroup'), '0::/batch.slice/job1\n');
    writeFileSync(
      join(root, 'proc/4242/status'),
      'Name:\tnumakit\nState:\tR (running)\nPid:\t4242\nVmRSS:\t  1024 kB\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n',
    );
    writeFileSync(
      join(root, 'proc/4242/numa_maps'),
      '00400000 default file=/home/alice/bin/numakit mapped=1 N0=1 kernelpagesize_kB=4\n',
    );
    for (const args of [[], ['--processes']]) {
      const dir = join(tmp(), 'snap');
      const r = await runMain(['--root', root, 'snapshot', dir, ...args]);
      assert.equal(r.code, 0, r.err);
      assert.ok(lstatSync(join(dir, 'proc/self')).isDirectory(), `${args}: a directory, not the link to a pid`);
      for (const f of ['cgroup', 'status'])
        assert.equal(
          readFileSync(join(dir, 'proc/self', f), 'utf8'),
          readFileSync(join(root, 'proc/4242', f), 'utf8'),
          f,
        );
      if (args.length === 0) {
        assert.equal(existsSync(join(dir, 'proc/4242')), false, 'no process without --processes');
        assert.equal(
          existsSync(join(dir, 'proc/self/numa_maps')),
          false,
          'its mappings (program and library paths) stay behind --processes',
        );
      } else
        assert.ok(existsSync(join(dir, 'proc/self/numa_maps')), 'with --processes its mappings too (the page size)');
    }
  });

  it('refuses a non-empty output directory and a missing argument', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'x'), '');
    const r = await runMain(['--example', 'spark-2s', 'snapshot', dir]);
    assert.equal(r.code, 1);
    assert.match(r.err, /directory is not empty/);
    assert.equal((await runMain(['snapshot'])).code, 2);
  });

  it('redactCmdline keeps argv[0] only', () => {
    assert.equal(redactCmdline(Buffer.from('a\0b\0')).toString(), 'a\0REDACTED\0');
    assert.equal(redactCmdline(Buffer.from('kworker\0')).toString(), 'kworker\0');
  });
});

describe('the note on files left out', () => {
  it('tells a user other than root to run as root', () => {
    assert.match(
      unreadableNote(['/proc/1/numa_maps'], 1000),
      /not readable by uid 1000 .*\(run as root for a complete snapshot;/,
    );
  });
  it('never tells root to run as root: it names what refuses root', () => {
    const note = unreadableNote(['/proc/1/numa_maps', '/proc/2/numa_maps'], 0);
    assert.doesNotMatch(note, /run as root/);
    assert.match(
      note,
      /^2 file\(s\) not readable by uid 0 were left out: \/proc\/1\/numa_maps, \/proc\/2\/numa_maps \(root was refused them by something other than file modes: a security module/,
    );
  });
});
