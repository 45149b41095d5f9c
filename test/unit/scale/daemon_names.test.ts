// doctor looks for three daemons by name among every process (10,000 on the large capture): the
// sampler's stage 1 compares each stat's comm bytes with the names asked for and makes a string
// only of a comm that is one of them. Names are status's Name (commAsName: a backslash and a
// newline escaped), so a comm holding either is still found.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSampler } from '../../../src/discover/process_sampler.js';
import { commBytesOf } from '../../../src/sysfs/proc_stat_files.js';
import { openRoot } from '../../../src/sysfs/root.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-daemon-names-'));
after(() => rmSync(base, { recursive: true, force: true }));
const comms = new Map<number, string>([
  [2, 'tuned'],
  [3, 'a\\b'],
  [4, 'x\ny'],
  [5, 'tune'],
  [6, 'tuned2'],
  [7, 'irq (x) balance'],
]);
const OTHERS = 300;
for (let pid = 100; pid < 100 + OTHERS; pid++) comms.set(pid, 'java');
for (const [pid, comm] of comms) {
  mkdirSync(join(base, 'proc', String(pid)), { recursive: true });
  writeFileSync(
    join(base, 'proc', String(pid), 'stat'),
    `${pid} (${comm}) S 1 1 1 0 -1 0 5 0 1 0 10 20 0 0 20 0 4 0 100 8192000 300 18446744073709551615\n`,
  );
}

function namesFound(names: ReadonlySet<string>): { found: string[]; decoded: number } {
  const sampler = createSampler(openRoot(base), {
    screen: { minRssBytes: 2 ** 50, pageSize: 4096, idleBelow: 0 },
    names,
    cmdline: false,
  });
  const real = Buffer.prototype.toString;
  let decoded = 0;
  Buffer.prototype.toString = function (this: Buffer, ...a: Parameters<Buffer['toString']>) {
    decoded++;
    return real.apply(this, a);
  };
  try {
    sampler.sample(0);
  } finally {
    Buffer.prototype.toString = real;
    sampler.close();
  }
  return { found: sampler.names.map((n) => `${n.pid}:${n.name}`), decoded };
}

describe("stage 1's names (doctor's daemons)", () => {
  it('finds each name asked for, escapes included, and decodes no other comm', () => {
    const { found, decoded } = namesFound(new Set(['tuned', 'a\\\\b', 'x\\ny', 'irq (x) balance', 'nothere']));
    assert.deepEqual(found, ['2:tuned', '3:a\\\\b', '4:x\\ny', '7:irq (x) balance']);
    assert.ok(decoded < 20, `${decoded} strings decoded for ${comms.size} processes`);
  });

  it('every name when asked for all of them', () => {
    const sampler = createSampler(openRoot(base), {
      screen: { minRssBytes: 2 ** 50, pageSize: 4096, idleBelow: 0 },
      names: true,
      cmdline: false,
    });
    sampler.sample(0);
    assert.equal(sampler.names.length, comms.size);
    sampler.close();
  });

  it('the bytes of each name: escapes undone, a name no comm shows matches none', () => {
    const bytes = commBytesOf(['tuned', 'a\\\\b', 'x\\ny', 'lone\\'])!.map((b) => Buffer.from(b).toString('latin1'));
    assert.deepEqual(bytes, ['tuned', 'a\\b', 'x\ny']);
    assert.equal(commBytesOf(['bad\uFFFDname']), null, 'a name U+FFFD stands in: every comm decoded');
  });
});
