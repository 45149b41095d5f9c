// doctor reads the large processes in one pass of the sampler and closes it: with onePass, stage
// 1 keeps nothing of a process its bars stop (10,000 objects on the large capture, kept for a
// next pass there will not be) nor of one past them that the pass stops before (7,500 on the
// large mix, where doctor reads 256), passes the same processes on, and refuses a second pass.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSampler, type ProcessSamplerOptions } from '../../../src/discover/process_sampler.js';
import { openRoot } from '../../../src/sysfs/root.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-one-pass-'));
after(() => rmSync(base, { recursive: true, force: true }));
const SMALL = 200;
const LARGE = [7, 9];
for (let pid = 1; pid <= SMALL + 10; pid++) {
  const pages = LARGE.includes(pid) ? 2 ** 18 : 300; // 1 GiB or 1.2 MB of 4 KiB pages
  mkdirSync(join(base, 'proc', String(pid)), { recursive: true });
  writeFileSync(
    join(base, 'proc', String(pid), 'stat'),
    `${pid} (p${pid}) S 1 1 1 0 -1 0 5 0 1 0 10 20 0 0 20 0 4 0 100 8192000 ${pages} 18446744073709551615\n`,
  );
}

function pass(o: Partial<ProcessSamplerOptions>): { pids: number[]; tracked: number; second: () => unknown } {
  const sampler = createSampler(openRoot(base), {
    screen: { minRssBytes: 2 ** 29, pageSize: 4096, idleBelow: 0 },
    cmdline: false,
    memory: 'none',
    threads: false,
    statusLater: true,
    ...o,
  });
  const pids = sampler.sample(0).map((s) => s.pid);
  return { pids, tracked: sampler.tracked, second: () => sampler.sample(1) };
}

describe('a one-pass sampler', () => {
  it('keeps only the processes past its bars, and passes the same ones', () => {
    const many = pass({});
    const once = pass({ onePass: true });
    assert.deepEqual(once.pids, many.pids);
    assert.deepEqual(once.pids, LARGE);
    assert.equal(many.tracked, SMALL + 10, 'a sampler of many passes knows every process');
    assert.equal(once.tracked, LARGE.length);
  });

  it('keeps nothing of a process past its bars that the pass stops before reading further', () => {
    // doctor's pass: the largest first, stopped after `most` (here 1 of the 2 over the bar).
    const sampler = createSampler(openRoot(base), {
      screen: { minRssBytes: 2 ** 29, pageSize: 4096, idleBelow: 0 },
      cmdline: false,
      memory: 'none',
      threads: false,
      statusLater: true,
      onePass: true,
    });
    let visited = 0;
    const pids = [...sampler.run({ nowMs: 0, largestFirst: { stop: () => visited++ >= 1 } })].map((s) => s.pid);
    assert.deepEqual(pids, [LARGE[0]]);
    assert.equal(sampler.counts.kept, LARGE.length, 'both counted over the bar');
    assert.equal(sampler.tracked, 1);
    assert.equal(sampler.startOf(LARGE[0]!), 100);
    assert.equal(sampler.startOf(LARGE[1]!), null);
  });

  it('refuses a second pass', () => {
    assert.throws(pass({ onePass: true }).second, /a second pass with onePass/);
    assert.doesNotThrow(pass({}).second);
  });
});
