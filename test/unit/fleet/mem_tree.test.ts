// The in-memory snapshot tree and archive reader: links resolve as on disk, unsafe archives are
// refused by name, and doctor reads an archive in memory exactly as it reads the same tree on disk.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { createSnapshotArchive } from '../../../src/actuate/snapshot_write.js';
import { readSnapshotArchive } from '../../../src/sysfs/snapshot_archive.js';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { NumakitError } from '../../../src/model/errors.js';
import type { DoctorInput } from '../../../src/model/doctor_input.js';
import { doctorProfile } from '../../../src/policy/doctor/profiles.js';
import { runDoctor } from '../../../src/policy/doctor/rules.js';
import { renderDoctorJson } from '../../../src/render/doctor_json.js';
import { MemTree, normalise } from '../../../src/sysfs/mem_tree.js';
import { listDir, readLink, readText, resolvePath } from '../../../src/sysfs/read.js';
import { openRoot, treeRoot } from '../../../src/sysfs/root.js';
import { EXAMPLES } from '../doctor/cli_helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'numakit-memtree-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function sampleTree(): MemTree {
  const t = new MemTree();
  t.add('./sys/devices/pci0000:00/0000:00:01.0/net/eth0/device/numa_node', { kind: 'file', data: Buffer.from('1\n') });
  t.add('sys/class/net/eth0', { kind: 'link', target: '../../devices/pci0000:00/0000:00:01.0/net/eth0' });
  t.add('sys/abs', { kind: 'link', target: '/sys/class/net' });
  t.add('sys/loop', { kind: 'link', target: 'loop' });
  t.add('proc/sys/kernel/hostname', { kind: 'file', data: 'w7\n' });
  t.add('empty/', { kind: 'dir' });
  return t;
}

describe('MemTree', () => {
  const root = treeRoot(sampleTree(), 'sample');
  it('reads files through relative and absolute links, as the kernel resolves them', () => {
    assert.equal(readText(root, 'sys/class/net/eth0/device/numa_node'), '1\n');
    assert.equal(readText(root, 'sys/abs/eth0/device/numa_node'), '1\n');
    assert.equal(readText(root, 'proc/sys/kernel/hostname'), 'w7\n');
  });
  it('lists directories (sorted, links followed) and reads links without following them', () => {
    assert.deepEqual(listDir(root, 'sys'), ['abs', 'class', 'devices', 'loop']);
    assert.deepEqual(listDir(root, 'sys/class/net'), ['eth0']);
    assert.deepEqual(listDir(root, 'empty'), []);
    assert.equal(readLink(root, 'sys/class/net/eth0'), '../../devices/pci0000:00/0000:00:01.0/net/eth0');
    assert.equal(resolvePath(root, 'sys/class/net/eth0/device'), 'sys/devices/pci0000:00/0000:00:01.0/net/eth0/device');
  });
  it('absent, a directory read as a file, and a link loop are all "missing", never a throw', () => {
    assert.equal(readText(root, 'sys/nope'), null);
    assert.equal(readText(root, 'sys/class'), null);
    assert.equal(readText(root, 'sys/loop/x'), null);
    assert.equal(listDir(root, 'proc/sys/kernel/hostname'), null);
  });
  it('normalise refuses absolute and ".." paths', () => {
    assert.equal(normalise('./a/b/'), 'a/b');
    assert.equal(normalise('a//b/./c'), 'a/b/c');
    assert.throws(() => normalise('/etc/passwd'), /unsafe path/);
    assert.throws(() => normalise('a/../../x'), /unsafe path/);
  });
});

function tarOf(entries: { path: string; type: string; body?: string; linkpath?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const h = Buffer.alloc(512);
    new Header({
      path: e.path,
      type: e.type as never,
      size: body.length,
      mode: 0o644,
      linkpath: e.linkpath,
      mtime: new Date(0),
    }).encode(h, 0);
    parts.push(h, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}

describe('readSnapshotArchive', () => {
  it('doctor on an archive read in memory says exactly what it says on the tree on disk', async () => {
    for (const name of ['spark-2s', 'cxl-3node']) {
      const file = join(tmp, `${name}.tar.gz`);
      await createSnapshotArchive(join(EXAMPLES, name), file);
      const spark = (i: DoctorInput) => runDoctor(i, doctorProfile({ klass: 'spark', alias: null }, i));
      const onDisk = spark(await gatherDoctorInput(openRoot(join(EXAMPLES, name))));
      const inMemory = spark(await gatherDoctorInput(treeRoot(await readSnapshotArchive(file), file)));
      assert.equal(
        renderDoctorJson(inMemory, { profile: 'spark', target: 'x' }),
        renderDoctorJson(onDisk, { profile: 'spark', target: 'x' }),
      );
    }
  });
  const bad: [string, Buffer, RegExp][] = [
    [
      'dotdot',
      tarOf([{ path: 'sys/../../etc/x', type: 'File', body: 'x' }]),
      /not a snapshot archive: unsafe path 'sys\/..\/..\/etc\/x'/,
    ],
    [
      'device',
      tarOf([
        { path: 'sys/a', type: 'File', body: '1' },
        { path: 'dev/sda', type: 'BlockDevice' },
      ]),
      /dev\/sda: BlockDevice entries are not part of a snapshot/,
    ],
    ['hardlink', tarOf([{ path: 'sys/a', type: 'Link', linkpath: 'sys/b' }]), /sys\/a: Link entries/],
    [
      'corrupt',
      Buffer.concat([tarOf([{ path: 'sys/a', type: 'File', body: 'x'.repeat(5000) }]).subarray(0, 40)]),
      /cannot read the archive/,
    ],
    ['not-gzip', Buffer.from('hello, this is not an archive\n'), /cannot read the archive/],
  ];
  for (const [name, bytes, re] of bad) {
    it(`refuses a ${name} archive with one line naming it`, async () => {
      const file = join(tmp, `${name}.tar.gz`);
      writeFileSync(file, bytes);
      await assert.rejects(
        readSnapshotArchive(file),
        (e: Error) =>
          e instanceof NumakitError && re.test(e.message) && e.message.startsWith(file) && !e.message.includes('\n'),
      );
    });
  }
});
