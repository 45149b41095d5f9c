// Issue 27's golden check: what topo, doctor, stat and plan print on a generated capture (the
// large machine's generator at test size: test/fixtures/scale_capture.ts TEST) is what they
// printed before the large-machine work (test/golden/scale/, written by the build before it).
// UPDATE_GOLDEN=1 rewrites the files: the diff is reviewed like code.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { assertGolden, runMain } from '../../helpers/cli.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-golden-'));
const dir = join(base, 'machine');
writeScaleCapture(dir, TEST);
after(() => rmSync(base, { recursive: true, force: true }));

const CASES: [string, string[]][] = [
  ['topo.json', ['topo', '--json']],
  ['doctor.json', ['doctor', '--json']],
  ['stat.json', ['stat', '--json']],
  ['stat-procs.json', ['stat', '--procs', '--json', '--top', '1000']],
  ['stat-p-java.txt', ['stat', '-p', 'java']],
  ['plan-postgres.txt', ['plan', 'postgres', '--buffer-pool', '48g']],
];

for (const [file, args] of CASES)
  test(`scale capture: ${args.join(' ')} prints what it printed before (test/golden/scale/${file})`, async () => {
    const r = await runMain(['--root', dir, ...args]);
    assert.equal(r.err, '', `${args.join(' ')}: stderr`);
    assertGolden(`scale/${file}`, r.out.replaceAll(base, '<capture>'));
  });
