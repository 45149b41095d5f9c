// readNamedFile: a file the user named reads as its text; one that cannot be read is one line
// naming it as the caller asked, with the system's reason.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { NumakitError } from '../../../src/model/errors.js';
import { readNamedFile, reasonOf } from '../../../src/runtime/named_file.js';

const dir = mkdtempSync(join(tmpdir(), 'named-file-'));

it('reads the text of a file the user named', () => {
  writeFileSync(join(dir, 'a.yaml'), 'interval: 5s\n');
  assert.equal(readNamedFile(join(dir, 'a.yaml')), 'interval: 5s\n');
});

it('names a missing file by its path, or by the label and what it was to be', () => {
  const missing = join(dir, 'nosuch.json');
  assert.throws(
    () => readNamedFile(missing),
    (e: Error) => e instanceof NumakitError && e.message === `${missing}: cannot read (ENOENT)`,
  );
  assert.throws(
    () => readNamedFile(missing, { label: `--config ${missing}` }),
    (e: Error) => e.message === `--config ${missing}: cannot read (ENOENT)`,
  );
  assert.throws(
    () => readNamedFile(missing, { what: 'the change file' }),
    (e: Error) => e.message === `${missing}: cannot read the change file (ENOENT)`,
  );
});

it('gives a directory its own reason', () => {
  assert.throws(
    () => readNamedFile(dir),
    (e: Error) => e.message === `${dir}: cannot read (EISDIR)`,
  );
});

it('reasonOf: the system code where there is one, else the message', () => {
  assert.equal(reasonOf(Object.assign(new Error('x'), { code: 'EACCES' })), 'EACCES');
  assert.equal(reasonOf(new Error('bad JSON')), 'bad JSON');
});
