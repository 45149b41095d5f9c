// doctor's one pass of the process sampler (discover/placement.ts readLargeProcesses): every
// process's name and size from its stat, status only for the processes that may be large (status
// is 57 lines the kernel formats; 10,000 of them were a third of the walk); a process without a
// stat file (a snapshot made without one) from its status. Names as status's Name shows them
// (comm escaped).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type LargeOptions, readLargeProcesses } from '../../../src/discover/placement.js';
import type { SysRoot } from '../../../src/sysfs/root.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { statLine } from '../../fixtures/scale_capture.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-walk-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const GiB = 2 ** 30;
const walkProcesses = (root: SysRoot, minBytes: number, most?: number, o: Partial<LargeOptions> = {}) =>
  readLargeProcesses(root, { minBytes, names: true, ...(most === undefined ? {} : { most }), ...o });
function proc(pid: number, o: { comm: string; name?: string; rssPages: number; stat?: boolean }): void {
  mkdirSync(join(dir, `proc/${pid}`), { recursive: true });
  if (o.stat !== false)
    writeFileSync(
      join(dir, `proc/${pid}/stat`),
      statLine({
        id: pid,
        comm: o.comm,
        pid,
        ticks: 100,
        threads: 1,
        start: 5,
        vsize: o.rssPages * 8192,
        rss: o.rssPages,
        cpu: 0,
      }),
    );
  writeFileSync(
    join(dir, `proc/${pid}/status`),
    `Name:\t${o.name ?? o.comm}\nState:\tS (sleeping)\nVmRSS:\t${o.rssPages * 4} kB\nThreads:\t1\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0-1\n`,
  );
}
// The tree's page size, as a snapshot carries it (the third test changes it).
const pageKb = (kb: number) => {
  mkdirSync(join(dir, 'proc/self'), { recursive: true });
  writeFileSync(
    join(dir, 'proc/self/numa_maps'),
    `00400000 default file=/usr/bin/node mapped=8 N0=8 kernelpagesize_kB=${kb}\n`,
  );
};
pageKb(4);
proc(1, { comm: 'kworker/0:1', rssPages: 0 });
// The kernel writes comm as it is in stat, and escapes a newline and a backslash in status's Name.
proc(2, { comm: 'we\nird\\x', name: 'we\\nird\\\\x', rssPages: 256 });
proc(3, { comm: 'java', rssPages: (2 * GiB) / 4096 });
proc(4, { comm: 'old-snapshot', rssPages: (3 * GiB) / 4096, stat: false });

test('names from stat as status shows them, status read for the large processes only', () => {
  const read: string[] = [];
  const root = { ...openRoot(dir, 'walk'), onAccess: (_k: string, rel: string) => void read.push(rel) };
  const walk = walkProcesses(root, GiB);
  assert.equal(walk.listed, 4);
  assert.deepEqual(
    walk.names.map((n) => [n.pid, n.name]),
    [
      [1, 'kworker/0:1'],
      [2, 'we\\nird\\\\x'],
      [3, 'java'],
      [4, 'old-snapshot'],
    ],
  );
  assert.deepEqual(
    walk.large.map((p) => [p.pid, p.status.rssBytes]),
    [
      [3, 2 * GiB],
      [4, 3 * GiB],
    ],
  );
  assert.deepEqual(
    read.filter((r) => r.endsWith('/status')).sort(),
    ['proc/3/status', 'proc/4/status'],
    'status of the small processes is not read',
  );
  assert.equal(walk.hidden, 0);
  assert.equal(walk.over, 2);
});

test('status of the `most` largest only (by stat), the others counted', () => {
  const read: string[] = [];
  const root = { ...openRoot(dir, 'walk'), onAccess: (_k: string, rel: string) => void read.push(rel) };
  const walk = walkProcesses(root, 512 * 1024, 2);
  // pid 4 has no stat: its status is its only size. Of 2 and 3 by stat, 3 is the larger.
  assert.deepEqual(
    walk.large.map((p) => p.pid),
    [3, 4],
  );
  assert.equal(walk.over, 3);
  assert.deepEqual(read.filter((r) => r.endsWith('/status')).sort(), ['proc/3/status', 'proc/4/status']);
  assert.equal(walk.names.length, 4, 'every name still, from stat');
});

test('a smaller bar reads the status of the processes above it', () => {
  const walk = walkProcesses(openRoot(dir, 'walk'), 2 * 1024 * 1024);
  assert.deepEqual(
    walk.large.map((p) => p.pid),
    [3, 4],
  );
  assert.deepEqual(
    walkProcesses(openRoot(dir, 'walk'), 512 * 1024).large.map((p) => p.pid),
    [2, 3, 4],
  );
});

test("the page size is the tree's (discover/page_size.ts): 256 pages are 1 MiB on 4 KiB pages, 16 MiB on 64 KiB ones", () => {
  const walked = () => {
    const read: string[] = [];
    const root = { ...openRoot(dir, 'walk'), onAccess: (_k: string, rel: string) => void read.push(rel) };
    const walk = walkProcesses(root, 2 * 1024 * 1024);
    return { large: walk.large.map((p) => p.pid), status: read.filter((r) => r.endsWith('/status')).sort() };
  };
  try {
    assert.deepEqual(walked(), { large: [3, 4], status: ['proc/3/status', 'proc/4/status'] });
    // On 64 KiB pages pid 2's 256 pages may be 16 MiB: its status is read (and says 1 MiB).
    pageKb(64);
    assert.deepEqual(walked(), {
      large: [3, 4],
      status: ['proc/2/status', 'proc/3/status', 'proc/4/status'],
    });
    // No numa_maps of its own: the processes' stat and status say 4 KiB.
    rmSync(join(dir, 'proc/self'), { recursive: true, force: true });
    assert.deepEqual(walked().large, [3, 4]);
  } finally {
    pageKb(4);
  }
});

test('names asked for by a set: only the processes of those names are kept (doctor keeps its daemons, not 10,000 names)', () => {
  const root = openRoot(dir, 'walk');
  const all = walkProcesses(root, GiB).names.map((n) => [n.pid, n.name]);
  for (const wanted of [['java'], ['we\\nird\\\\x', 'old-snapshot'], ['nothing-runs-this']]) {
    const walk = walkProcesses(openRoot(dir, 'walk'), GiB, undefined, { names: new Set(wanted) });
    assert.deepEqual(
      walk.names.map((n) => [n.pid, n.name]),
      all.filter(([, name]) => wanted.includes(name as string)),
      wanted.join(','),
    );
  }
});
