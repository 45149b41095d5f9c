// readFile's own mechanics (one scratch buffer; symlinks in a jail found by O_NOFOLLOW, not by an
// lstat of every file; a file classified by fstat only when it does not read like a regular
// file): the text of a file of any size comes back whole, a link as the last component is still
// resolved inside the root, and a FIFO or device is refused whichever way its read goes.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listDir, listSubdirs, readFile, readLink, readText, wholeInOneRead } from '../../../src/sysfs/read.js';
import { openRoot, type SysRoot } from '../../../src/sysfs/root.js';
import { Warnings } from '../../../src/model/warnings.js';
import { needTools } from '../../helpers/tools.js';
import { withFileReads } from '../../helpers/fs_calls.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-read-'));
after(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'sys/a'), { recursive: true });
const root = openRoot(dir);

describe('readFile', () => {
  // 64 KiB is the read buffer: a three-byte character across each boundary, and a file of many.
  for (const size of [0, 1, 65_535, 65_536, 65_537, 3 * 65_536 + 7]) {
    it(`returns a ${size}-byte file whole, multi-byte characters across 64 KiB boundaries intact`, () => {
      const text = Array.from({ length: size }, (_, i) =>
        i % 65_536 === 65_534 ? '€' : String.fromCharCode(97 + (i % 26)),
      )
        .join('')
        .slice(0, size);
      writeFileSync(join(dir, 'sys/a/f'), text);
      assert.equal(readText(root, 'sys/a/f'), text);
    });
  }
  it('reads two files one after the other without mixing their bytes', () => {
    writeFileSync(join(dir, 'sys/a/long'), 'x'.repeat(1000));
    writeFileSync(join(dir, 'sys/a/short'), 'yz');
    assert.equal(readText(root, 'sys/a/long'), 'x'.repeat(1000));
    assert.equal(readText(root, 'sys/a/short'), 'yz');
  });
  it('follows a relative and an absolute link as the last component, inside the root', () => {
    writeFileSync(join(dir, 'sys/a/target'), 'inside\n');
    symlinkSync('target', join(dir, 'sys/a/rel'));
    symlinkSync('/sys/a/target', join(dir, 'sys/a/abs'));
    assert.equal(readText(root, 'sys/a/rel'), 'inside\n');
    assert.equal(readText(root, 'sys/a/abs'), 'inside\n');
  });
  it('says missing for a path under a missing directory and for a dangling link', () => {
    symlinkSync('nowhere', join(dir, 'sys/a/dangling'));
    assert.deepEqual(readFile(root, 'sys/b/f'), { ok: false, reason: 'missing' });
    assert.deepEqual(readFile(root, 'sys/a/dangling'), { ok: false, reason: 'missing' });
  });
});

describe('readFile reads a one-value kernel file with one read', () => {
  it('a sysfs attribute and a one-record procfs file: one read; a file of records, one over a page: to EOF', () => {
    mkdirSync(join(dir, 'proc/7'), { recursive: true });
    mkdirSync(join(dir, 'proc/irq/5'), { recursive: true });
    const files: Record<string, string> = {
      'sys/a/governor': 'performance\n',
      'proc/irq/5/smp_affinity_list': '0-3\n',
      'proc/7/stat': '7 (x) S 1 7 7 0 -1 0\n',
      'proc/7/numa_maps': '7f0000 default anon=1 N0=1\n',
      'sys/a/page': 'p'.repeat(4096),
      'sys/a/big': 'b'.repeat(5000),
    };
    for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text);
    const { value, reads } = withFileReads(() => Object.keys(files).map((rel) => readText(root, rel)));
    assert.deepEqual(value, Object.values(files));
    const count = (rel: string) => reads.get(join(dir, rel))?.join(',');
    assert.equal(count('sys/a/governor'), '1');
    assert.equal(count('proc/irq/5/smp_affinity_list'), '1');
    assert.equal(count('proc/7/stat'), '1');
    // numa_maps is a seq_file of many records on a running system: a short read is not its end.
    assert.equal(count('proc/7/numa_maps'), '2');
    // A page or more: read on (a sysfs binary attribute gives a page a read).
    assert.equal(count('sys/a/page'), '2');
    assert.equal(count('sys/a/big'), '2');
  });
  it('which paths are whole in one short read: sysfs attributes and single_open procfs files', () => {
    const whole = [
      'sys/devices/system/cpu/cpu0/cpufreq/scaling_governor',
      'sys/class/net/eth0/queues/rx-0/rps_cpus',
      'proc/irq/120/effective_affinity_list',
      'proc/42/stat',
      'proc/42/status',
    ];
    const toEof = [
      'sys/fs/cgroup/cgroup.procs',
      'sys/kernel/debug/sched/numa_balancing/scan_size_mb',
      'proc/42/numa_maps',
      'proc/42/task/43/stat',
      'proc/vmstat',
      'proc/interrupts',
      'proc/self/mountinfo',
      'proc/sys/kernel/numa_balancing',
    ];
    assert.deepEqual(
      whole.filter((p) => !wholeInOneRead(p)),
      [],
    );
    assert.deepEqual(
      toEof.filter((p) => wholeInOneRead(p)),
      [],
    );
  });
});

describe('readFile refuses what is not a regular file, however its read goes', () => {
  const watched = (): { root: SysRoot; warnings: Warnings } => {
    const warnings = new Warnings();
    return { root: { ...openRoot(dir), warnings }, warnings };
  };
  it('an empty regular file is an empty text, with no warning', () => {
    writeFileSync(join(dir, 'sys/a/empty'), '');
    const { root: r, warnings } = watched();
    assert.deepEqual(readFile(r, 'sys/a/empty'), { ok: true, text: '' });
    assert.equal(warnings.size, 0);
  });
  it('a FIFO that a writer holds open with no data (the read fails with EAGAIN) is a FIFO', async (t) => {
    if (!needTools(t, 'sh')) return;
    execFileSync('mkfifo', [join(dir, 'sys/a/fifo')]);
    // sleep holds the FIFO open read-write (which does not wait for a reader) and writes nothing.
    const writer = spawn('sh', ['-c', `exec sleep 30 <> ${join(dir, 'sys/a/fifo')}`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      const { root: r, warnings } = watched();
      assert.deepEqual(readFile(r, 'sys/a/fifo'), { ok: false, reason: 'unparseable' });
      assert.deepEqual(
        warnings.list().map((w) => w.problem),
        ['a FIFO, not a file'],
      );
    } finally {
      writer.kill();
      await once(writer, 'exit');
    }
  });
  for (const [name, minor] of [
    ['null', 3],
    ['zero', 5],
  ] as const) {
    it(`a device that reads like /dev/${name} is a device`, {
      skip: process.getuid?.() !== 0 && 'mknod needs root',
    }, () => {
      execFileSync('mknod', [join(dir, `sys/a/${name}`), 'c', '1', String(minor)]);
      const { root: r, warnings } = watched();
      assert.deepEqual(readFile(r, `sys/a/${name}`), { ok: false, reason: 'unparseable' });
      assert.deepEqual(
        warnings.list().map((w) => w.problem),
        ['a device, not a file'],
      );
    });
  }
});

describe('a jail remembers its tree, never past its walls', () => {
  it("a listed directory's links to directories are still resolved inside the root", () => {
    mkdirSync(join(dir, 'sys/j/real'), { recursive: true });
    writeFileSync(join(dir, 'sys/j/real/f'), 'inside\n');
    symlinkSync('/sys/j/real', join(dir, 'sys/j/out')); // absolute: the root's /sys/j/real, not the host's
    const r = openRoot(dir);
    assert.deepEqual(listDir(r, 'sys/j'), ['out', 'real']);
    assert.equal(readText(r, 'sys/j/out/f'), 'inside\n');
    assert.equal(readText(r, 'sys/j/real/f'), 'inside\n');
  });
  it('"." and ".." after a directory already resolved are walked, not appended to it', () => {
    const r = openRoot(dir);
    assert.equal(readText(r, 'sys/j/real/f'), 'inside\n'); // sys/j/real is now known
    assert.equal(readText(r, 'sys/j/real/../real/f'), 'inside\n');
    assert.equal(readText(r, 'sys/j/real/./f'), 'inside\n');
    assert.deepEqual(readFile(r, 'sys/j/real/..'), { ok: false, reason: 'unparseable' }); // sys/j: a directory
  });
  it('a link through a missing directory and ".." never reaches a link out of the root', () => {
    const outside = mkdtempSync(join(tmpdir(), 'numakit-outside-'));
    try {
      writeFileSync(join(outside, 'secret'), 'outside\n');
      mkdirSync(join(dir, 'sys/k'), { recursive: true });
      symlinkSync(outside, join(dir, 'sys/k/evil')); // a host path: inside the jail it is /tmp/... of the root
      symlinkSync('nothere/../evil/secret', join(dir, 'sys/k/hop'));
      const r = openRoot(dir);
      assert.deepEqual(readFile(r, 'sys/k/hop'), { ok: false, reason: 'missing' }); // was the host's file
      assert.deepEqual(readFile(r, 'sys/k/evil/secret'), { ok: false, reason: 'missing' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
  it("a cgroup tree's subdirectories are listed inside the root, never through a link to the host", () => {
    const outside = mkdtempSync(join(tmpdir(), 'numakit-outside-'));
    try {
      mkdirSync(join(outside, 'host-only.slice'));
      mkdirSync(join(dir, 'sys/fs/cg/kubepods.slice'), { recursive: true });
      writeFileSync(join(dir, 'sys/fs/cg/cgroup.procs'), '');
      symlinkSync(outside, join(dir, 'sys/fs/cgroup')); // a host path: inside the jail it names the root's own
      const r = openRoot(dir);
      assert.deepEqual(listSubdirs(r, 'sys/fs/cg'), ['kubepods.slice']);
      assert.equal(listSubdirs(r, 'sys/fs/cgroup'), null); // was ['host-only.slice']
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
  it('a link read again gives the same target; one absent when first asked is found once it exists', () => {
    const r = openRoot(dir);
    assert.equal(readLink(r, 'sys/j/later'), null);
    symlinkSync('real', join(dir, 'sys/j/later'));
    assert.equal(readLink(r, 'sys/j/later'), 'real');
    assert.equal(readLink(r, 'sys/j/later'), 'real');
    assert.equal(readLink(r, 'sys/j/real'), null); // a directory, not a link
  });
});
