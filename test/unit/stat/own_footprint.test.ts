// stat -m without numakit's own footprint (issue 25 item 7): what its numa_maps holds per node
// (parseFootprint), taken out of the node's meminfo (withoutFootprint), and on this machine, run
// as installed (a node binary of its own, as the single executable is) between two numastat -m
// runs, Mapped and AnonPages lie between numastat's values give or take 2 MB, where numakit
// alone used to add ~35 MB of Mapped. The lab (test/lab/stat.lab.test.ts) checks every row.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { withoutFootprint } from '../../../src/model/stat.js';
import { parseProcMaps } from '../../../src/sysfs/proc_maps.js';
import { ownMultiplicity, parseFootprint } from '../../../src/sysfs/proc_numa_maps.js';
import { skipUnlessTools } from '../../helpers/tools.js';

const MiB = 2 ** 20;

describe('parseFootprint', () => {
  const cases: [string, string, Record<number, { anonBytes: number; mappedBytes: number }>][] = [
    [
      'heap: anonymous',
      '55d0 default heap anon=3 dirty=3 N0=2 N1=1 kernelpagesize_kB=4',
      {
        0: { anonBytes: 8192, mappedBytes: 0 },
        1: { anonBytes: 4096, mappedBytes: 0 },
      },
    ],
    [
      'its binary, mapped by it alone',
      '400000 default file=/usr/bin/node mapped=10 N0=10 kernelpagesize_kB=4',
      {
        0: { anonBytes: 0, mappedBytes: 40960 },
      },
    ],
    [
      'libc, mapped by others too: not its own',
      '7f00 default file=/lib/libc.so.6 mapped=5 mapmax=40 N1=5 kernelpagesize_kB=4',
      {
        1: { anonBytes: 0, mappedBytes: 0 },
      },
    ],
    [
      'a private file mapping written to: anon in proportion',
      '7f10 default file=/lib/x.so anon=1 dirty=1 mapped=4 N0=4 kernelpagesize_kB=4',
      {
        0: { anonBytes: 4096, mappedBytes: 12288 },
      },
    ],
    [
      'hugetlb: in no meminfo row but HugePages_*',
      '7f20 default file=/anon_hugepage huge dirty=1 N0=1 kernelpagesize_kB=2048',
      {},
    ],
    ['a mapping with no page in memory', '7f30 default stack', {}],
  ];
  for (const [name, line, want] of cases)
    it(name, () => assert.deepEqual(Object.fromEntries(parseFootprint(`${line}\n`)), want));
});

describe('ownMultiplicity and mapmax: which file pages are its own', () => {
  // Node maps part of its text twice (offset 0x14c4000 lies inside the text mapping): map count 2, no one else.
  const maps = parseProcMaps(
    [
      '00400000-00b6f000 r--p 00000000 fe:00 1 /usr/bin/node',
      '00b72000-025fe000 r-xp 00772000 fe:00 1 /usr/bin/node',
      '7f11cee00000-7f11cef92000 r-xp 014c4000 fe:00 1 /usr/bin/node',
      '7f7274c44000-7f7274d9a000 r-xp 00028000 fe:00 2 /usr/lib/x86_64-linux-gnu/libc.so.6',
      '7f7274e00000-7f7274e10000 rw-p 00000000 00:00 0',
    ].join('\n'),
  );
  const k = ownMultiplicity(maps);
  it('counts its own overlapping mappings of a file', () => {
    assert.deepEqual(Object.fromEntries(k), { [0x400000]: 1, [0xb72000]: 2, [0x7f11cee00000]: 2, [0x7f7274c44000]: 1 });
  });
  it('mapmax within its own multiplicity is its own; above it, someone else maps the pages', () => {
    const text = [
      'b72000 default file=/usr/bin/node dirty=10 mapmax=2 N0=10 kernelpagesize_kB=4',
      '7f7274c44000 default file=/lib/libc.so.6 mapped=5 mapmax=28 N0=5 kernelpagesize_kB=4',
      '400000 default file=/usr/bin/node mapped=3 mapmax=3 N0=3 kernelpagesize_kB=4',
    ].join('\n');
    assert.deepEqual(Object.fromEntries(parseFootprint(text, k)), { 0: { anonBytes: 0, mappedBytes: 10 * 4096 } });
  });
});

describe('withoutFootprint', () => {
  const node = {
    MemTotal: 1000 * MiB,
    MemFree: 400 * MiB,
    MemUsed: 600 * MiB,
    Active: 100 * MiB,
    Inactive: 200 * MiB,
    'Active(anon)': 50 * MiB,
    'Inactive(anon)': 8 * MiB,
    AnonPages: 58 * MiB,
    Mapped: 60 * MiB,
  };
  it('anonymous pages leave AnonPages and the inactive anon list first, then the active one; its own file pages leave Mapped', () => {
    assert.deepEqual(withoutFootprint(node, { anonBytes: 10 * MiB, mappedBytes: 35 * MiB }), {
      ...node,
      AnonPages: 48 * MiB,
      'Inactive(anon)': 0,
      Inactive: 192 * MiB,
      'Active(anon)': 48 * MiB,
      Active: 98 * MiB,
      Mapped: 25 * MiB,
    });
  });
  it('MemFree and MemUsed stay as read (freed pages go to the per-CPU lists, not MemFree)', () => {
    const m = withoutFootprint(node, { anonBytes: 10 * MiB, mappedBytes: 0 });
    assert.deepEqual([m['MemFree'], m['MemUsed']], [node.MemFree, node.MemUsed]);
  });
  it('never below 0, and a field the node does not report stays unreported', () => {
    const m = withoutFootprint({ AnonPages: MiB, Mapped: MiB }, { anonBytes: 5 * MiB, mappedBytes: 5 * MiB });
    assert.deepEqual(m, { AnonPages: 0, Mapped: 0 });
  });
});

describe('on this machine', { skip: skipUnlessTools('numastat') }, () => {
  const BIN = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;
  /** Node 0's MB of a numastat -m row. */
  const row = (text: string, key: string) => {
    const m = new RegExp(`^${key.replace(/[()]/g, '\\$&')}\\s+([\\d.]+)`, 'm').exec(text);
    assert.ok(m, `no ${key} row in:\n${text}`);
    return Number(m[1]);
  };
  const numastat = () => spawnSync('numastat', ['-m'], { encoding: 'utf8' }).stdout;

  it('stat --numastat -m as installed: Mapped and AnonPages between numastat -m before and after (2 MB)', (t) => {
    if (!existsSync(BIN)) return t.skip('needs a build (npm run build): dist/cli/bin.js');
    // A node binary no other process maps, as the single executable is: with the test runner's
    // own node binary, numakit's ~35 MB of it would be Mapped already (mapped by the runner).
    const dir = mkdtempSync(join(tmpdir(), 'numakit-own-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const node = join(dir, 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
    // Other processes move these too: the check holds in one of three tries on a busy machine.
    const misses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = numastat();
      const r = spawnSync(node, [BIN, 'stat', '--numastat', '-m'], { encoding: 'utf8' });
      const after = numastat();
      assert.equal(r.status, 0, r.stderr);
      const out = ['Mapped', 'AnonPages'].filter((k) => {
        const [b, o, a] = [row(before, k), row(r.stdout, k), row(after, k)];
        return o < Math.min(b, a) - 2 || o > Math.max(b, a) + 2;
      });
      if (out.length === 0) return;
      misses.push(
        out.map((k) => `${k}: ${row(before, k)} / numakit ${row(r.stdout, k)} / ${row(after, k)}`).join('; '),
      );
    }
    assert.fail(`numakit's own pages are in its figures:\n${misses.join('\n')}`);
  });
});
