// stat -p PATTERN matches numastat's "NAME CMDLINE" of every process: the names it read to match
// them name the processes it prints, so no matched process's status is read again for its name
// (2,000 of 10,000 on the large capture). The output is the one status's Name gives.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openRoot } from '../../../src/sysfs/root.js';
import { runCommand } from '../../helpers/cli.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-statp-'));
writeScaleCapture(base, { ...TEST, procs: 200 });
after(() => rmSync(base, { recursive: true, force: true }));

test('stat -p java: the matched processes named from the match, their status not read', async () => {
  const statusRead: string[] = [];
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file' && /^proc\/\d+\/status$/.test(rel)) statusRead.push(rel);
    },
  };
  const stat = (await import('../../../src/cli/commands/stat.js')).default;
  const r = await runCommand(stat, root, ['-p', 'java']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(statusRead, [], 'status files read');
  const rows = [...r.out.matchAll(/^(\d+) \((.+?)\)/gm)];
  assert.ok(rows.length > 5, r.out);
  for (const [, pid, name] of rows) {
    const status = readFileSync(join(base, `proc/${pid}/status`), 'utf8');
    assert.equal(name, /^Name:\t(.*)$/m.exec(status)?.[1], `pid ${pid}`);
  }
});
