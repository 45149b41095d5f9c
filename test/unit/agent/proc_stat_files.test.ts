// The agent's /proc/PID/stat reader (sysfs/proc_stat_files.ts): the byte parser agrees with
// parseTaskStat and refuses what it refuses; on the running system a file stays open between
// reads, and a process that exits reads as gone (its file closed), never as another process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  parseStatFieldBytes,
  parseStatBytes,
  parseThreadBytes,
  ProcStatFiles,
  type StatFields,
} from '../../../src/sysfs/proc_stat_files.js';
import { parseTaskStat } from '../../../src/sysfs/proc_task_stat.js';
import { openRoot, REAL_ROOT } from '../../../src/sysfs/root.js';

const fields = (): StatFields => ({
  cpuTicks: -1,
  startTicks: -1,
  threads: -1,
  rssPages: -1,
  vsizeBytes: -1,
  faults: -1,
});
const tail =
  '0 -1 4194560 100 0 0 0 12 34 0 0 20 0 3 0 5678 1048576 256 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 0 17 2 0 0 0 0 0';
const line = (comm: string, rest = tail) => `4242 (${comm}) S 1 4242 4242 ${rest}\n`;

describe('parseStatFieldBytes (the one byte walker both parsers use)', () => {
  it('reads the wanted fields in order, skips the others unread, and refuses a wanted one missing or not a count', () => {
    const buf = Buffer.from(line('a) b (c', tail));
    const got = new Float64Array(3);
    // state (3) is a letter and tpgid (8) is -1: neither is wanted, so neither is judged.
    assert.equal(parseStatFieldBytes(buf, buf.length, [4, 14, 39], got), true);
    assert.deepEqual([...got], [1, 12, 17]);
    assert.equal(parseStatFieldBytes(buf, buf.length, [8], got), false, 'a negative field is not a count');
    assert.equal(parseStatFieldBytes(buf, buf.length, [3], got), false, 'state is not a count');
    assert.equal(parseStatFieldBytes(buf, buf.length, [60], got), false, 'past the last field');
    const noParen = Buffer.from('4242 comm S 1\n');
    assert.equal(parseStatFieldBytes(noParen, noParen.length, [4], got), false);
  });
});

describe('parseStatBytes', () => {
  const good: Array<[string, string]> = [
    ['a plain line', line('node')],
    ['comm with spaces and parentheses: fields counted from the last )', line('a) (b c) S 9')],
    [
      'a kernel thread (vsize 0, rss 0)',
      `2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 3 0 0 20 0 1 0 10 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0\n`,
    ],
    ['no trailing newline', line('x').trimEnd()],
  ];
  for (const [name, text] of good) {
    it(`${name}: the same fields as parseTaskStat`, () => {
      const want = parseTaskStat(text);
      const got = fields();
      const buf = Buffer.from(text);
      assert.equal(parseStatBytes(buf, buf.length, got), true);
      assert.deepEqual(got, {
        cpuTicks: want.cpuTicks,
        startTicks: want.startTicks,
        threads: want.threads,
        rssPages: want.rssPages,
        vsizeBytes: want.vsizeBytes,
        faults: want.faults,
      });
      const thread = { ticks: -1, processor: -1 };
      assert.equal(parseThreadBytes(buf, buf.length, thread), true);
      assert.deepEqual(thread, { ticks: want.cpuTicks, processor: want.processor });
    });
  }
  const bad: Array<[string, string]> = [
    ['no ) at all', '4242 node S 1 2 3'],
    ['cut short before rss', line('x').slice(0, 60)],
    ['utime not a count', line('x', tail.replace(' 12 34 ', ' 1x 34 '))],
    ['rss negative', line('x', tail.replace(' 1048576 256 ', ' 1048576 -256 '))],
    ['empty', ''],
  ];
  for (const [name, text] of bad) {
    it(`${name}: refused (parseTaskStat refuses it too)`, () => {
      const buf = Buffer.from(text);
      assert.equal(parseStatBytes(buf, buf.length, fields()), false);
      assert.throws(() => parseTaskStat(text));
      // A thread's line is read to field 39 (processor) and not for its RSS.
      if (name !== 'rss negative') assert.equal(parseThreadBytes(buf, buf.length, { ticks: 0, processor: 0 }), false);
    });
  }
  it('a thread line whose processor is past the kernel limit is refused', () => {
    const buf = Buffer.from(line('x', tail.replace(' 17 2 ', ' 999999 2 ')));
    assert.equal(parseThreadBytes(buf, buf.length, { ticks: 0, processor: 0 }), false);
    assert.throws(() => parseTaskStat(buf.toString()), /not a CPU id/);
  });
  it('reads only the first n bytes of the buffer (a reused buffer holds an older, longer line)', () => {
    const buf = Buffer.alloc(512, 0x20);
    Buffer.from(line('y', tail.replace(' 12 34 ', ' 99999999 99999999 '))).copy(buf);
    const text = line('y');
    Buffer.from(text).copy(buf);
    const got = fields();
    assert.equal(parseStatBytes(buf, text.length, got), true);
    assert.equal(got.cpuTicks, 46);
  });
});

describe('ProcStatFiles on the running system', () => {
  it("keeps a process's file open across reads; once it exits it reads as gone and its file is closed", async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const files = new ProcStatFiles(REAL_ROOT);
    try {
      const a = fields();
      assert.equal(files.read(child.pid!, a), 'read');
      assert.equal(files.open, 1);
      assert.ok(a.vsizeBytes > 0 && a.threads >= 1 && a.startTicks > 0, JSON.stringify(a));
      const b = fields();
      assert.equal(files.read(child.pid!, b), 'read');
      assert.equal(b.startTicks, a.startTicks);
      assert.equal(files.open, 1, 'the second read reuses the open file');
      child.kill('SIGKILL');
      await once(child, 'exit'); // reaped: its struct pid is gone
      assert.equal(files.read(child.pid!, fields()), 'gone');
      assert.equal(files.open, 0);
    } finally {
      child.kill('SIGKILL');
      files.closeAll();
    }
  });

  it('a pid that does not exist reads as gone; retain() closes the files of pids not kept', () => {
    const files = new ProcStatFiles(REAL_ROOT, { probeGone: true });
    assert.equal(files.read(2 ** 22 + 1, fields()), 'gone'); // past pid_max's ceiling
    assert.equal(files.opens, 0, 'a process gone before its first read: no open tried (no exception)');
    // A reader of listed pids (nearly all alive) pays no stat before its open.
    const listed = new ProcStatFiles(REAL_ROOT);
    assert.equal(listed.read(2 ** 22 + 1, fields()), 'gone');
    assert.equal(listed.opens, 1, 'without probeGone the open is tried at once');
    assert.equal(files.read(process.pid, fields()), 'read');
    assert.equal(files.open, 1);
    files.retain(new Set());
    assert.equal(files.open, 0);
  });
});

describe('ProcStatFiles in a jail (a capture: --root)', () => {
  it('reads each stat by the path resolved at its first read, and still resolves a link inside the root', () => {
    const dir = mkdtempSync(join(tmpdir(), 'numakit-statfiles-'));
    try {
      mkdirSync(join(dir, 'proc/42'), { recursive: true });
      mkdirSync(join(dir, 'elsewhere'));
      writeFileSync(join(dir, 'proc/42/stat'), line('first'));
      const files = new ProcStatFiles(openRoot(dir));
      const a = fields();
      assert.equal(files.read(42, a), 'read');
      assert.equal(a.cpuTicks, 46);
      writeFileSync(join(dir, 'proc/42/stat'), line('second', tail.replace(' 12 34 ', ' 100 34 ')));
      assert.equal(files.read(42, a), 'read');
      assert.equal(a.cpuTicks, 134, 'opened again at each read: a changed file is read as it is now');
      // Now a link whose absolute target is the root's, not the host's: read inside the root.
      writeFileSync(join(dir, 'elsewhere/stat'), line('linked', tail.replace(' 12 34 ', ' 7 0 ')));
      unlinkSync(join(dir, 'proc/42/stat'));
      symlinkSync('/elsewhere/stat', join(dir, 'proc/42/stat'));
      assert.equal(files.read(42, a), 'read');
      assert.equal(a.cpuTicks, 7);
      rmSync(join(dir, 'proc/42'), { recursive: true });
      assert.equal(files.read(42, fields()), 'gone');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
