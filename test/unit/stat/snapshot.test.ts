// A snapshot taken with --processes carries every file numakit stat reads: stat on the snapshot
// prints what it prints on the machine it was taken from.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openRoot } from '../../../src/sysfs/root.js';
import { fixtureRoot, runCommand, runStat } from './helpers.js';

test('stat on a snapshot of the four-node fixture equals stat on the fixture', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-stat-snap-'));
  try {
    const snapshot = (await import('../../../src/cli/commands/snapshot.js')).default;
    const s = await runCommand(snapshot, fixtureRoot('four-node'), [join(dir, 'snap'), '--processes', '--no-redact']);
    assert.equal(s.code, 0, s.err);
    const stat = (await import('../../../src/cli/commands/stat.js')).default;
    for (const args of [
      ['--numastat', '-m', '-n', '-p', '1201', '-p', '1302'],
      ['-m'],
      ['--procs', '--json'],
      ['-p', 'postgres'],
    ]) {
      const want = await runStat('four-node', args);
      const got = await runCommand(stat, openRoot(join(dir, 'snap')), args);
      assert.equal(got.code, 0, got.err);
      assert.equal(got.out, want.out, args.join(' '));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
