// doctor samples at most MAX_SAMPLED processes, the largest, on any process mix: a machine of many
// big workers (the generator's 'large' mix) costs what a usual one does, and the rules say which
// they read ("the 256 largest of N").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { coverageText, MAX_SAMPLED } from '../../../src/model/large_process.js';
import { processScope } from '../../../src/policy/doctor/process_view.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const dir = mkdtempSync(join(tmpdir(), 'numakit-scale-cap-'));
writeScaleCapture(dir, { ...TEST, procs: 400, mix: 'large' });
after(() => rmSync(dir, { recursive: true, force: true }));

test('the largest MAX_SAMPLED processes of the sampling size, and how many there were', async () => {
  const input = await gatherDoctorInput(openRoot(dir));
  assert.ok(input.processes.ok);
  const sampled = input.processes.value;
  assert.equal(sampled.length, MAX_SAMPLED);
  assert.ok((input.processesOver ?? 0) > MAX_SAMPLED, `${input.processesOver} over the bar`);
  const pids = sampled.map((p) => p.pid);
  assert.deepEqual(
    pids,
    [...pids].sort((a, b) => a - b),
    'in pid order, as before',
  );
  const scope = processScope(input, 'x', 'x');
  assert.ok(scope.checked);
  assert.match(
    coverageText(scope.coverage, scope.coverage.read),
    new RegExp(
      `^${MAX_SAMPLED} of ${MAX_SAMPLED} processes of .* or more \\(the ${MAX_SAMPLED} largest of ${input.processesOver}\\)$`,
    ),
  );
});

test('under the cap nothing changes: every process of the size, no "largest of"', async () => {
  const small = mkdtempSync(join(tmpdir(), 'numakit-scale-cap-'));
  try {
    writeScaleCapture(small, TEST);
    const input = await gatherDoctorInput(openRoot(small));
    assert.equal(input.processesOver, undefined);
    assert.ok(input.processes.ok && input.processes.value.length < MAX_SAMPLED);
  } finally {
    rmSync(small, { recursive: true, force: true });
  }
});
