import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { atomicWrite } from '../../../src/actuate/atomic_write.js';
import {
  acquireLock,
  createChangeSet,
  listChangeSets,
  loadChangeSet,
  readJournal,
  saveChangeSet,
  sweepJournal,
} from '../../../src/actuate/journal.js';
import { compareChangeSets } from '../../../src/actuate/journal_order.js';
import type { ChangeSet } from '../../../src/model/change.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'numakit-journal-'));

const cs = (id: string, time = '2025-01-01T00:00:00.000Z'): ChangeSet => ({
  version: 1,
  id,
  time,
  source: 'test',
  status: 'applied',
  pid: 1,
  planned: 0,
  entries: [],
  files: [],
});
const fields = { source: 'test', status: 'applied' as const, pid: 1, planned: 0, entries: [], files: [] };

test('atomicWrite replaces the file and leaves no temporary file behind', () => {
  const dir = tmp();
  atomicWrite(join(dir, 'a/b.json'), 'one');
  atomicWrite(join(dir, 'a/b.json'), 'two');
  assert.deepEqual(readdirSync(join(dir, 'a')), ['b.json']);
  assert.equal(readFileSync(join(dir, 'a/b.json'), 'utf8'), 'two');
  rmSync(dir, { recursive: true });
});

test('ids are a sequence: 1, 2, 3 ... whatever the clock says, and load round-trips', () => {
  const dir = tmp();
  const t = new Date(Date.UTC(2025, 4, 6, 7, 8, 9));
  const a = createChangeSet(dir, fields, t);
  const b = createChangeSet(dir, fields, t);
  const c = createChangeSet(dir, fields, new Date(Date.UTC(2020, 0, 1))); // the clock went back
  assert.deepEqual([a.id, b.id, c.id], ['1', '2', '3']);
  assert.deepEqual(
    listChangeSets(dir).map((x) => x.id),
    ['1', '2', '3'],
  );
  assert.deepEqual(loadChangeSet(dir, '2'), b);
  assert.throws(() => loadChangeSet(dir, '../etc/passwd'), /no change set '..\/etc\/passwd'/);
  assert.throws(() => loadChangeSet(dir, '9'), /no change set '9' in .*journal/);
  rmSync(dir, { recursive: true });
});

test('the counter decides; a lost counter falls back to the highest id present, never reusing one', () => {
  const dir = tmp();
  createChangeSet(dir, fields, new Date());
  createChangeSet(dir, fields, new Date());
  rmSync(join(dir, 'journal', '2.json')); // the newest set's file is lost: the counter still says 2
  assert.equal(createChangeSet(dir, fields, new Date()).id, '3');
  rmSync(join(dir, 'journal', '.seq'));
  assert.equal(createChangeSet(dir, fields, new Date()).id, '4');
  writeFileSync(join(dir, 'journal', '.seq'), 'garbage');
  assert.equal(createChangeSet(dir, fields, new Date()).id, '5');
  rmSync(dir, { recursive: true });
});

test('older journals keep working: dated ids come first, "X-2" after "X" (a file name sort put it before)', () => {
  const dir = tmp();
  for (const id of ['20250506-070809-2', '20250506-070809-10', '20250506-070809', '20240101-000000'])
    saveChangeSet(dir, cs(id));
  createChangeSet(dir, fields, new Date(Date.UTC(2019, 0, 1)));
  assert.deepEqual(
    listChangeSets(dir).map((x) => x.id),
    ['20240101-000000', '20250506-070809', '20250506-070809-2', '20250506-070809-10', '1'],
  );
  assert.equal(
    compareChangeSets(cs('a', '2025-01-02T00:00:00Z'), cs('b', '2025-01-01T00:00:00Z')),
    1,
    'other ids by their time',
  );
  rmSync(dir, { recursive: true });
});

test('corrupt files are listed with the first problem, never thrown; the readable sets are all there', () => {
  const dir = tmp();
  saveChangeSet(dir, cs('1'));
  saveChangeSet(dir, cs('3'));
  const j = join(dir, 'journal');
  writeFileSync(join(j, '2.json'), '{"version":1,'); // cut short
  writeFileSync(
    join(j, '4.json'),
    JSON.stringify({
      ...cs('4'),
      entries: [
        {
          change: { kind: 'sysctl', target: 'vm.x', value: '1' },
          path: 'proc/sys/vm/x',
          old: '0',
          restore: '0',
          state: 'half',
        },
      ],
    }),
  );
  writeFileSync(join(j, '5.json'), JSON.stringify(cs('6')));
  writeFileSync(join(j, '7.json'), JSON.stringify({ version: 2 }));
  const r = readJournal(dir);
  assert.deepEqual(
    r.sets.map((x) => x.id),
    ['1', '3'],
  );
  assert.deepEqual(
    r.corrupt.map((c) => [c.name, c.reason.replace(/:.*$/s, ':')]),
    [
      ['2.json', 'not valid JSON:'],
      ['4.json', 'entries[0].state:'],
      ['5.json', "it holds change set '6'"],
      ['7.json', 'version:'],
    ],
  );
  assert.throws(() => loadChangeSet(dir, '2'), /journal\/2\.json: corrupt journal file \(not valid JSON/);
  rmSync(dir, { recursive: true });
});

test('sweepJournal sets corrupt files aside in journal/corrupt/ (kept, named), and the next id skips their numbers', () => {
  const dir = tmp();
  saveChangeSet(dir, cs('1'));
  writeFileSync(join(dir, 'journal', '2.json'), 'not json');
  writeFileSync(join(dir, 'journal', '.1.json.tmp-2147483646'), 'left by a dead writer');
  const warned: string[] = [];
  assert.deepEqual(
    sweepJournal(dir, (l) => warned.push(l)).map((x) => x.id),
    ['1'],
  );
  assert.match(
    warned.join('\n'),
    /journal\/2\.json: corrupt journal file \(not valid JSON.*\); set aside as .*journal\/corrupt\/2\.json/,
  );
  assert.equal(readFileSync(join(dir, 'journal', 'corrupt', '2.json'), 'utf8'), 'not json');
  assert.deepEqual(readdirSync(join(dir, 'journal')).sort(), ['1.json', 'corrupt']);
  assert.deepEqual(readJournal(dir).setAside, ['2.json']);
  rmSync(join(dir, 'journal', '.seq'), { force: true });
  assert.equal(createChangeSet(dir, fields, new Date()).id, '3');
  rmSync(dir, { recursive: true });
});

test('the lock: refused while a live process holds it, taken over from a dead one, released', () => {
  const dir = tmp();
  mkdirSync(join(dir, 'journal'), { recursive: true });
  writeFileSync(join(dir, 'lock'), `${process.ppid}\n`);
  assert.throws(
    () => acquireLock(dir),
    new RegExp(`another numakit apply, rollback or agent is running \\(pid ${process.ppid}`),
  );
  writeFileSync(join(dir, 'lock'), '2147483646\n'); // no such pid
  const release = acquireLock(dir);
  assert.ok(existsSync(join(dir, 'lock')));
  release();
  assert.equal(existsSync(join(dir, 'lock')), false);
  rmSync(dir, { recursive: true });
});

test('a state directory that cannot be created is one line naming it, not a raw errno', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'file'), '');
  assert.throws(() => acquireLock(join(dir, 'file', 'state')), /cannot write the journal in .*file\/state: /);
  rmSync(dir, { recursive: true });
});
