// A captured tree (a jail) remembers which entries a listing showed as directories, so a file
// under one is opened without an lstat of its directory. proc/ of a large capture lists 10,000
// pids: what is kept of a listing is its names, each subdirectory's path made at its use, not
// two path strings and a map entry for every subdirectory at the listing.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { listPids } from '../../../src/sysfs/proc_list.js';
import { ProcStatFiles, type StatFields } from '../../../src/sysfs/proc_stat_files.js';
import { listDir, readText } from '../../../src/sysfs/read.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { withFsCalls } from '../../helpers/fs_calls.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const base = mkdtempSync(join(tmpdir(), 'numakit-jail-listing-'));
after(() => rmSync(base, { recursive: true, force: true }));
// A long root path, as a capture's under a deep directory.
const root = join(base, 'r'.repeat(240), 'r'.repeat(240));
const SUBDIRS = 4000;
mkdirSync(join(root, 'proc'), { recursive: true });
const STAT = (pid: number) =>
  `${pid} (a) S 1 1 1 0 -1 0 5 0 1 0 10 20 0 0 20 0 4 0 100 8192000 300 18446744073709551615\n`;
for (let pid = 1; pid <= SUBDIRS; pid++) {
  mkdirSync(join(root, 'proc', String(pid)));
  writeFileSync(join(root, 'proc', String(pid), 'stat'), STAT(pid));
}
mkdirSync(join(root, 'elsewhere'));
writeFileSync(join(root, 'elsewhere/stat'), 'linked\n');
symlinkSync('../elsewhere', join(root, 'proc/link'));

describe('a listing in a jail', () => {
  it('keeps its names, not a resolved path for each subdirectory', () => {
    const r = openRoot(root);
    gc();
    const before = process.memoryUsage().heapUsed;
    assert.equal(listDir(r, 'proc')?.length, SUBDIRS + 1);
    gc();
    const held = process.memoryUsage().heapUsed - before;
    // The names are kept (about 40 bytes each); a path string and a map entry for each subdirectory were 130 more.
    assert.ok(held < SUBDIRS * 100, `the listing holds ${held} bytes`);
  });

  it('opens a file under a listed subdirectory without an lstat, and still walks a link', () => {
    const r = openRoot(root);
    listDir(r, 'proc');
    const { value, calls } = withFsCalls(['lstatSync'], () => [
      readText(r, 'proc/7/stat'),
      readText(r, 'proc/link/stat'),
    ]);
    assert.deepEqual(value, [STAT(7), 'linked\n']);
    const lstats = calls.get('lstatSync')!.map((p) => p.slice(root.length));
    assert.ok(!lstats.includes('/proc/7'), `lstats: ${lstats.join(', ')}`);
    assert.ok(lstats.includes('/proc/link'), `lstats: ${lstats.join(', ')}`);
  });
});

describe("the process sampler's stat reads in a jail", () => {
  it('keep nothing per process between passes: the path is the listing of proc/', () => {
    const r = openRoot(root);
    const pids = listPids(r).filter((p) => p <= SUBDIRS);
    const files = new ProcStatFiles(r);
    const st: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0, faults: 0 };
    files.read(1, st);
    gc();
    const before = process.memoryUsage().heapUsed;
    const { value, calls } = withFsCalls(['lstatSync'], () => pids.filter((p) => files.read(p, st) === 'read').length);
    gc();
    const held = process.memoryUsage().heapUsed - before;
    assert.equal(value, SUBDIRS);
    assert.equal(st.rssPages, 300);
    assert.deepEqual(calls.get('lstatSync'), [], 'no lstat of a listed proc/PID');
    // A path kept for each process (its string and a map entry) held 2.3 MB here.
    assert.ok(held < SUBDIRS * 60, `the reads hold ${held} bytes`);
  });
});
