// scripts/run-tests.mjs's lab suite: one node --test per file, in sequence, a closing table of each
// file's wall time and result, and a failing exit status when any file failed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { REPO_DIR } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-run-tests-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function suite(files: Record<string, string>): { status: number | null; stdout: string } {
  rmSync(join(dir, 'test'), { recursive: true, force: true });
  mkdirSync(join(dir, 'test/lab'), { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, 'test/lab', name), body);
  const r = spawnSync(process.execPath, [join(REPO_DIR, 'scripts/run-tests.mjs'), 'lab'], {
    cwd: dir,
    encoding: 'utf8',
    // Not as a child of this test runner: the files' own runs report as top-level ones.
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
  });
  return { status: r.status, stdout: r.stdout };
}

symlinkSync(join(REPO_DIR, 'node_modules'), join(dir, 'node_modules'));
const PASS = "import { it } from 'node:test';\nit('passes', () => {});\n";
const FAIL = "import { it } from 'node:test';\nit('fails', () => { throw new Error('no'); });\n";

it('lab: runs each file alone and ends with its wall time and result; fails when one file fails', () => {
  const r = suite({ 'a.lab.test.ts': PASS, 'b.lab.test.ts': FAIL, 'c.lab.test.ts': PASS });
  assert.equal(r.status, 1, r.stdout);
  const table = r.stdout.slice(r.stdout.lastIndexOf('lab suite: wall time per file'));
  const rows = table.split('\n').slice(1, 5);
  assert.match(rows[0]!, /^test\/lab\/a\.lab\.test\.ts +\d+ s +load +[\d.]+ +pass$/);
  assert.match(rows[1]!, /^test\/lab\/b\.lab\.test\.ts +\d+ s +load +[\d.]+ +FAIL \(exit 1\)$/);
  assert.match(rows[2]!, /^test\/lab\/c\.lab\.test\.ts +\d+ s +load +[\d.]+ +pass$/);
  assert.match(rows[3]!, /^total +[\d.]+ min +1 of 3 failed$/);
  // One node --test a file: each file's TAP stream is a whole one (its own plan line).
  assert.equal(r.stdout.match(/^1\.\.1$/gm)?.length, 3, r.stdout);
});

it('lab: exits 0 when every file passes', () => {
  const r = suite({ 'a.lab.test.ts': PASS, 'b.lab.test.ts': PASS });
  assert.equal(r.status, 0, r.stdout);
  assert.match(r.stdout, /^total +[\d.]+ min +0 of 2 failed$/m);
});
