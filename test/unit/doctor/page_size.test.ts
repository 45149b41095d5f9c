// One page-size rule (discover/page_size.ts): numakit's own numa_maps, else a process's stat
// (pages) against its status (kB), else 4096; 4, 16 and 64 KiB pages told apart.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { nearestBasePage, readPageSize } from '../../../src/discover/page_size.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { statLine } from '../../fixtures/scale_capture.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(o: { selfKb?: number; procs?: { pid: number; rssPages: number; vmRssKb: number }[] }): string {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-page-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'proc'));
  if (o.selfKb !== undefined) {
    mkdirSync(join(dir, 'proc/self'));
    writeFileSync(
      join(dir, 'proc/self/numa_maps'),
      `00400000 default file=/x mapped=8 N0=8 kernelpagesize_kB=${o.selfKb}\n`,
    );
  }
  for (const p of o.procs ?? []) {
    mkdirSync(join(dir, `proc/${p.pid}`));
    const stat = {
      id: p.pid,
      comm: 'x',
      pid: p.pid,
      ticks: 1,
      threads: 1,
      start: 5,
      vsize: 1,
      rss: p.rssPages,
      cpu: 0,
    };
    writeFileSync(join(dir, `proc/${p.pid}/stat`), statLine(stat));
    writeFileSync(
      join(dir, `proc/${p.pid}/status`),
      `Name:\tx\nState:\tS (sleeping)\nVmRSS:\t${p.vmRssKb} kB\nThreads:\t1\n`,
    );
  }
  return dir;
}

test("numakit's own numa_maps first", () => {
  assert.equal(readPageSize(openRoot(tree({ selfKb: 64, procs: [{ pid: 1, rssPages: 100, vmRssKb: 400 }] }))), 65536);
});

test("else a process's resident pages (stat) against its resident kB (status): kernel threads and small ones skipped", () => {
  const procs = (kbPerPage: number) => [
    { pid: 2, rssPages: 0, vmRssKb: 0 },
    { pid: 3, rssPages: 10, vmRssKb: 10 * 64 },
    { pid: 7, rssPages: 5000, vmRssKb: 5000 * kbPerPage + 8 },
  ];
  assert.equal(readPageSize(openRoot(tree({ procs: procs(64) }))), 65536);
  assert.equal(readPageSize(openRoot(tree({ procs: procs(16) }))), 16384);
  assert.equal(readPageSize(openRoot(tree({ procs: procs(4) }))), 4096);
});

test('else 4096: the tree states no process size in pages', () => {
  assert.equal(readPageSize(openRoot(tree({}))), 4096);
});

test('the nearest base page to a ratio read a moment apart', () => {
  assert.equal(nearestBasePage(4100), 4096);
  assert.equal(nearestBasePage(60000), 65536);
  assert.equal(nearestBasePage(17000), 16384);
});
