// Issue 27: while huge pages are in use, serve's sampler adds each process's HugetlbPages (not in
// its RSS) to its size, and read every status at every scrape for it. A status is read again only
// when the count can have changed: a fault (minflt/majflt), an mmap or munmap (vsize), or after
// HUGETLB_TTL_MS.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createSampler, HUGETLB_TTL_MS } from '../../../src/discover/process_sampler.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-huge-'));
writeScaleCapture(base, TEST);
after(() => rmSync(base, { recursive: true, force: true }));

/** Adds `by` to field `n` (1-based) of a process's stat. */
function bump(pid: number, n: number, by: number): void {
  const f = join(base, 'proc', String(pid), 'stat');
  const text = readFileSync(f, 'utf8');
  const close = text.lastIndexOf(')');
  const w = text.slice(close + 2).split(' ');
  w[n - 3] = String(Number(w[n - 3]) + by);
  writeFileSync(f, `${text.slice(0, close + 2)}${w.join(' ')}`);
}

test('a status is read again for HugetlbPages only after a fault, an mmap or the TTL', () => {
  const statusReads: number[] = [];
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      const m = /^proc\/(\d+)\/status$/.exec(rel);
      if (kind === 'file' && m) statusReads.push(Number(m[1]));
    },
  };
  // serve's options (serve/collect/processes.ts): the status of a process visited is reused while its RSS holds.
  const s = createSampler(root, { hugetlb: true, cmdline: false, reuseStatus: true, threads: false, memory: 'none' });
  const pass = (nowMs: number) => {
    statusReads.length = 0;
    const out = s.sample(nowMs);
    return { out, reads: [...statusReads].sort((a, b) => a - b) };
  };
  const first = pass(0);
  assert.equal(first.out.length, TEST.procs);
  assert.equal(first.reads.length, TEST.procs, 'the first pass reads every status once');
  assert.deepEqual(pass(1000).reads, [], 'nothing changed: no status read');
  bump(2007, 10, 1); // a minor fault
  bump(2010, 23, 2 ** 21); // an mmap: vsize
  assert.deepEqual(pass(2000).reads, [2007, 2010]);
  assert.equal(pass(2000 + HUGETLB_TTL_MS).reads.length, TEST.procs, 'after the TTL every status again');
  s.close();
});
