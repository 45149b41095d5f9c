// Files written at a path the user names (snapshot FILE.tar.gz and DIR, topo --svg/--html FILE,
// bench --save FILE and --report DIR, plan --out DIR) are made beside it and renamed into place:
// a symlink planted at the path (another user's, in a shared /tmp, where fs.protected_symlinks=0
// lets root follow it) is replaced, and the file it points to is never written.
import assert from 'node:assert/strict';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { writeNamedFile } from '../../../src/actuate/atomic_write.js';
import { writeOutputs } from '../../../src/cli/commands/bench_output.js';
import type { Context } from '../../../src/cli/context.js';
import type { MemResult } from '../../../src/model/bench.js';
import { REAL_ROOT } from '../../../src/sysfs/root.js';
import { runMain } from '../../helpers/cli.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-named-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/** A victim file and a path that is a symlink to it, as another user would plant. */
function planted(name: string): { path: string; victim: string } {
  const dir = join(base, `case${n++}`);
  mkdirSync(dir);
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'precious\n');
  const path = join(dir, name);
  symlinkSync(victim, path);
  return { path, victim };
}

function assertReplaced(p: { path: string; victim: string }, what: string): void {
  assert.equal(readFileSync(p.victim, 'utf8'), 'precious\n', `${what}: the link's target is untouched`);
  assert.ok(!lstatSync(p.path).isSymbolicLink(), `${what}: the link is replaced`);
  const dir = join(p.path, '..');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('.tmp-')),
    [],
    `${what}: no temporary file left beside it`,
  );
}

describe('a symlink planted where the user names a file', () => {
  test('snapshot FILE.tar.gz', async () => {
    const p = planted('snap.tar.gz');
    const r = await runMain(['--example', 'lab-2node', 'snapshot', p.path]);
    assert.equal(r.code, 0, r.err);
    assertReplaced(p, 'snapshot');
    assert.equal((await runMain(['--root', p.path, 'topo'])).code, 0, 'the archive reads back');
  });

  test('snapshot DIR (a link to an empty directory)', async () => {
    const dir = join(base, `case${n++}`);
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'snap'));
    const r = await runMain(['--example', 'lab-2node', 'snapshot', join(dir, 'snap')]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(readdirSync(join(dir, 'elsewhere')), [], 'nothing written through the link');
    assert.ok(lstatSync(join(dir, 'snap')).isDirectory());
  });

  for (const flag of ['--svg', '--html']) {
    test(`topo ${flag} FILE`, async () => {
      const p = planted(`topo.${flag.slice(2)}`);
      const r = await runMain(['--example', 'lab-2node', 'topo', flag, p.path]);
      assert.equal(r.code, 0, r.err);
      assertReplaced(p, `topo ${flag}`);
      assert.match(readFileSync(p.path, 'utf8'), /<svg /);
    });
  }

  test('bench --save FILE and --report DIR', async () => {
    const save = planted('result.json');
    const report = planted('dir');
    rmSync(report.path);
    mkdirSync(report.path);
    const inReport = join(report.path, 'REPORT.md');
    symlinkSync(report.victim, inReport);
    const ctx = { err: () => {}, out: () => {}, root: REAL_ROOT } as unknown as Context;
    const result = { kind: 'mem', schemaVersion: 1 } as unknown as MemResult;
    await writeOutputs(result, { save: save.path }, ctx);
    assertReplaced(save, 'bench --save');
    assert.match(readFileSync(save.path, 'utf8'), /"kind": "mem"/);
    try {
      await writeOutputs(result, { report: report.path }, ctx);
    } catch {
      // a result this small may not render; what matters is the planted link below
    }
    assert.equal(readFileSync(report.victim, 'utf8'), 'precious\n', 'bench --report: the link target is untouched');
  });

  test('plan --out DIR (a link)', async () => {
    const dir = join(base, `case${n++}`);
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'plan'));
    const r = await runMain(['--example', 'spark-2s', 'plan', 'spark-standalone', '--out', join(dir, 'plan')]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(readdirSync(join(dir, 'elsewhere')), []);
    assert.ok(readdirSync(join(dir, 'plan')).includes('PLAN.md'));
  });

  test('the helper: a name planted beside the file for its temporary copy is not used', () => {
    const p = planted('x.txt');
    // The first temporary name, taken by a link to the victim: O_EXCL refuses it, the next is used.
    symlinkSync(p.victim, join(p.path, '..', `.x.txt.tmp-${process.pid}`));
    writeNamedFile(p.path, 'new\n');
    assert.equal(readFileSync(p.path, 'utf8'), 'new\n');
    assert.equal(readFileSync(p.victim, 'utf8'), 'precious\n');
  });
});
