// Snapshot archives given to --root (issue 18): hostile entries are refused with one line naming
// the archive, nothing is written anywhere (the archive is read in memory, never extracted), and
// links inside it resolve inside it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { runMain } from '../../helpers/cli.js';
import { tarBytes, type RawTarEntry } from '../../helpers/tar_bytes.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-archives-'));
// numakit's own temporary directory for these runs: whatever it would extract lands here, and
// other processes' files in the shared /tmp cannot be mistaken for it.
const privateTmp = join(base, 'tmp');
mkdirSync(privateTmp);
const savedTmp = process.env['TMPDIR'];
before(() => void (process.env['TMPDIR'] = privateTmp));
after(() => {
  if (savedTmp === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = savedTmp;
  rmSync(base, { recursive: true, force: true });
});

const NODE = 'sys/devices/system/node';
const good: RawTarEntry[] = [
  { path: 'manifest.json', type: '0', data: '{"name":"t"}\n' },
  { path: `${NODE}/online`, type: '0', data: '0\n' },
  { path: `${NODE}/node0/cpulist`, type: '0', data: '0-1\n' },
  { path: `${NODE}/node0/meminfo`, type: '0', data: 'Node 0 MemTotal: 1048576 kB\nNode 0 MemFree: 524288 kB\n' },
];

function archive(name: string, entries: RawTarEntry[], damage?: (b: Buffer) => Buffer): string {
  const file = join(base, name);
  const bytes = tarBytes(entries);
  writeFileSync(file, damage ? damage(bytes) : bytes);
  return file;
}

/** Everything numakit left in its temporary directory. */
const extractionDirs = () => readdirSync(privateTmp);

describe('--root FILE.tar.gz', () => {
  it('a good archive reads like its directory, and leaves no extraction directory behind', async () => {
    const before = extractionDirs();
    const r = await runMain(['--root', archive('good.tar.gz', good), 'topo', '--json']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).nodes[0].cpus, [0, 1]);
    assert.deepEqual(extractionDirs(), before);
  });

  const hostile: [string, RawTarEntry[], RegExp][] = [
    [
      'path traversal',
      [...good, { path: '../../escaped-by-numakit', type: '0', data: 'x' }],
      /unsafe path '\.\.\/\.\.\/escaped-by-numakit'/,
    ],
    ['an absolute path', [...good, { path: `${base}/absolute-by-numakit`, type: '0', data: 'x' }], /unsafe path '\//],
    [
      'a character device',
      [...good, { path: 'dev/zero', type: '3' }],
      /dev\/zero: CharacterDevice entries are not part of a snapshot/,
    ],
    [
      'a block device',
      [...good, { path: 'dev/sda', type: '4' }],
      /dev\/sda: BlockDevice entries are not part of a snapshot/,
    ],
    ['a FIFO', [...good, { path: 'fifo', type: '6' }], /fifo: FIFO entries are not part of a snapshot/],
    [
      'a hard link',
      [...good, { path: 'hard', type: '1', linkpath: '/etc/shadow' }],
      /hard: Link entries are not part of a snapshot/,
    ],
    [
      'a size bomb (a header claiming 8 GiB)',
      [...good, { path: 'proc/cmdline', type: '0', data: 'x', claimed: 2 ** 33 }],
      /./,
    ],
  ];
  for (const [what, entries, message] of hostile) {
    it(`${what}: refused in one line naming the archive; nothing written`, async () => {
      const before = extractionDirs();
      const file = archive(`${what.replace(/\W+/g, '-')}.tar.gz`, entries);
      const r = await runMain(['--root', file, 'topo']);
      assert.equal(r.code, 1, r.out);
      assert.equal(r.err.split('\n').length, 2, r.err);
      assert.ok(r.err.startsWith(`numakit: ${file}: `), r.err);
      assert.match(r.err, message);
      assert.ok(!existsSync(join(base, '..', 'escaped-by-numakit')) && !existsSync(join(base, 'absolute-by-numakit')));
      assert.deepEqual(extractionDirs(), before);
    });
  }

  it('a truncated gzip: one line naming the archive', async () => {
    const file = archive('truncated.tar.gz', good, (b) => b.subarray(0, Math.floor(b.length / 2)));
    const r = await runMain(['--root', file, 'topo']);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      new RegExp(`^numakit: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read the archive: [^\\n]+\\n$`),
    );
  });

  it('random bytes: one line naming the archive', async () => {
    const file = join(base, 'random.tar.gz');
    writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
    const r = await runMain(['--root', file, 'topo']);
    assert.equal(r.code, 1);
    assert.equal(r.err.split('\n').length, 2, r.err);
  });

  // What the file is not, in words (tar's own "invalid base256 encoding" or "Unrecognized archive
  // format" said nothing a user could act on).
  const garbage: [string, () => Buffer, RegExp][] = [
    [
      'plain text',
      () => Buffer.from('hello, not an archive\n'),
      /: not a gzip file \(a snapshot is a \.tar\.gz made by 'numakit snapshot'\)$/,
    ],
    [
      'gzip of a block that is not a tar header (tar: invalid base256 encoding)',
      () => {
        const h = Buffer.alloc(1536);
        h.write('sys/', 0);
        h[124] = 0x80;
        return gzipSync(h);
      },
      /: a gzip file, but not of a tar archive \(no ustar header/,
    ],
    [
      'gzip header and garbage',
      () => Buffer.from('1f8b0800000000000003ffffffffffffffff', 'hex'),
      /: a gzip file that is corrupt/,
    ],
    [
      'a snapshot cut short',
      () => {
        const b = tarBytes(good.concat({ path: 'sys/big', type: '0', data: 'x'.repeat(200000) }));
        return b.subarray(0, Math.floor(b.length / 2));
      },
      /: a tar\.gz file cut short/,
    ],
  ];
  for (const [what, bytes, message] of garbage) {
    it(`${what}: the error says what the file is not`, async () => {
      const file = join(base, `${what.replace(/\W+/g, '-')}.tar.gz`);
      writeFileSync(file, bytes());
      const r = await runMain(['--root', file, 'topo']);
      assert.equal(r.code, 1);
      assert.equal(r.err.split('\n').length, 2, r.err);
      assert.match(r.err.trimEnd(), message);
      assert.doesNotMatch(r.err.slice(r.err.indexOf('cannot read')), /base256|TAR_BAD_ARCHIVE/);
    });
  }

  it('a symlink pointing outside resolves inside the archive: nothing outside is read', async () => {
    const entries = good
      .filter((e) => !e.path.endsWith('meminfo'))
      .concat({ path: `${NODE}/node0/meminfo`, type: '2', linkpath: '/etc/passwd' });
    const r = await runMain(['--root', archive('link-out.tar.gz', entries), 'topo']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /memory unknown \(no meminfo\)/);
    assert.doesNotMatch(r.out + r.err, /root:x:0:0/);
  });

  it('snapshot refuses an archive root instead of writing an empty copy', async () => {
    const r = await runMain(['--root', archive('again.tar.gz', good), 'snapshot', join(base, 'copy')]);
    assert.equal(r.code, 1);
    assert.match(r.err, /is already a snapshot archive/);
  });
});

describe('output directories under /proc', () => {
  it('snapshot and plan --out into /proc fail in one line instead of hanging in mkdir', async () => {
    const s = await runMain(['--example', 'lab-2node', 'snapshot', '/proc/numakit-no-such-dir/snap']);
    assert.equal(s.code, 1);
    assert.match(s.err, /^numakit: cannot create \/proc\/numakit-no-such-dir: /);
    const p = await runMain([
      '--example',
      'spark-2s',
      'plan',
      'spark-standalone',
      '--out',
      '/proc/numakit-no-such-dir/plan',
    ]);
    assert.equal(p.code, 1);
    assert.match(p.err, /^numakit: cannot create \/proc\/numakit-no-such-dir/);
  });
});
