// sysfs/kept_file.ts: on the running system the file stays open and each read sees it anew;
// a missing file is absent; any other root reads through read.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { KeptFile } from '../../../src/sysfs/kept_file.js';
import { parseProcStat } from '../../../src/sysfs/proc_stat.js';
import { openRoot, REAL_ROOT } from '../../../src/sysfs/root.js';

describe('KeptFile', () => {
  it('/proc/self/stat read twice through one open file: the second read is the file now (its CPU time moved on)', () => {
    const ticks = (text: string) =>
      text
        .slice(text.lastIndexOf(')') + 2)
        .split(' ')
        .slice(11, 13)
        .reduce((a, x) => a + Number(x), 0);
    const f = new KeptFile(REAL_ROOT, 'proc/self/stat');
    const a = f.read()!;
    const t0 = process.cpuUsage();
    while (process.cpuUsage(t0).user + process.cpuUsage(t0).system < 60_000) {
      // burn 60 ms of CPU time, so that the second read differs from the first
    }
    const b = f.read()!;
    f.close();
    assert.equal(b.split(' ')[0], String(process.pid));
    assert.ok(ticks(b) > ticks(a), `${ticks(a)} -> ${ticks(b)} ticks`);
  });

  it('/proc/stat through a kept file parses as read.ts would read it', () => {
    const f = new KeptFile(REAL_ROOT, 'proc/stat');
    const cpus = parseProcStat(f.read()!);
    f.close();
    assert.ok(cpus.size >= 1 && [...cpus.values()].every((c) => c.total >= c.busy));
  });

  it('a missing file is null, on the running system and in a test tree; a test tree reads through the jail', () => {
    assert.equal(new KeptFile(REAL_ROOT, 'proc/no-such-file').read(), null);
    const dir = mkdtempSync(join(tmpdir(), 'numakit-kept-'));
    try {
      mkdirSync(join(dir, 'proc'));
      writeFileSync(join(dir, 'proc/stat'), 'cpu0 1 2 3 4\n');
      const root = openRoot(dir);
      const f = new KeptFile(root, 'proc/stat');
      assert.equal(f.read(), 'cpu0 1 2 3 4\n');
      writeFileSync(join(dir, 'proc/stat'), 'cpu0 5 6 7 8\n');
      assert.equal(f.read(), 'cpu0 5 6 7 8\n');
      assert.equal(new KeptFile(root, 'proc/missing').read(), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseProcStat stops at the first line that is not a cpu line', () => {
  it('the intr line (and any cpuN-looking text after it) is not read', () => {
    const m = parseProcStat('cpu  2 0 2 10\ncpu0 1 0 1 5\ncpu1 1 0 1 5\nintr 123 4 5 6\ncpu7 9 9 9 9\n');
    assert.deepEqual([...m.keys()], [0, 1]);
  });
});
