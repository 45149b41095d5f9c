import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { atomicWrite } from '../../../src/actuate/atomic_write.js';
import { acquireLock, listChangeSets, loadChangeSet, newChangeSetId, saveChangeSet } from '../../../src/actuate/journal.js';
import type { ChangeSet } from '../../../src/model/change.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'numakit-journal-'));

const cs = (id: string): ChangeSet => ({
  version: 1, id, time: '2025-01-01T00:00:00.000Z', source: 'test', status: 'applied', pid: 1, planned: 0, entries: [], files: [],
});

test('atomicWrite replaces the file and leaves no temporary file behind', () => {
  const dir = tmp();
  atomicWrite(join(dir, 'a/b.json'), 'one');
  atomicWrite(join(dir, 'a/b.json'), 'two');
  assert.deepEqual(readdirSync(join(dir, 'a')), ['b.json']);
});

test('save, load and list round-trip; ids sort by time and never collide', () => {
  const dir = tmp();
  const now = new Date(Date.UTC(2025, 4, 6, 7, 8, 9));
  const id = newChangeSetId(dir, now);
  assert.equal(id, '20250506-070809');
  saveChangeSet(dir, cs(id));
  assert.equal(newChangeSetId(dir, now), '20250506-070809-2');
  saveChangeSet(dir, cs('20240101-000000'));
  assert.deepEqual(listChangeSets(dir).map((c) => c.id), ['20240101-000000', '20250506-070809']);
  assert.deepEqual(loadChangeSet(dir, id), cs(id));
  assert.throws(() => loadChangeSet(dir, '../etc/passwd'), /no change set '..\/etc\/passwd'/);
  assert.throws(() => loadChangeSet(dir, '20990101-000000'), /no change set '20990101-000000' in .*journal/);
});

test('a damaged journal file is a clear error naming it', () => {
  const dir = tmp();
  mkdirSync(join(dir, 'journal'));
  writeFileSync(join(dir, 'journal', 'x.json'), '{"version":1,');
  assert.throws(() => listChangeSets(dir), /journal\/x\.json: journal file is not valid JSON/);
  writeFileSync(join(dir, 'journal', 'x.json'), '{"version":2}');
  assert.throws(() => listChangeSets(dir), /journal\/x\.json: not a numakit change set/);
});

test('the lock: refused while a live process holds it, taken over from a dead one, released', () => {
  const dir = tmp();
  mkdirSync(join(dir, 'journal'), { recursive: true });
  writeFileSync(join(dir, 'lock'), `${process.ppid}\n`);
  assert.throws(() => acquireLock(dir), new RegExp(`another numakit apply or rollback is running \\(pid ${process.ppid}`));
  writeFileSync(join(dir, 'lock'), '2147483646\n'); // no such pid
  const release = acquireLock(dir);
  assert.ok(existsSync(join(dir, 'lock')));
  release();
  assert.equal(existsSync(join(dir, 'lock')), false);
});
