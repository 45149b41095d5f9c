// Issue 27: doctor walks /proc once. Each process's status is read once (its name, size and
// where it may run all come from it; the sampled large processes' again by the sampler, which
// reads their numa_maps), and no comm file is read: status's Name is the comm.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-walk-'));
writeScaleCapture(base, TEST);
after(() => rmSync(base, { recursive: true, force: true }));

test('doctor reads each process status once (the sampled ones twice) and no comm', async () => {
  const reads = new Map<string, number>();
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file' && rel.startsWith('proc/')) reads.set(rel, (reads.get(rel) ?? 0) + 1);
    },
  };
  const input = await gatherDoctorInput(root);
  assert.ok(input.comms.ok && (input.comms.value['java']?.length ?? 0) >= TEST.procs / 10, 'java processes by name');
  assert.ok(input.processes.ok && input.processes.value.length > 0, 'some processes sampled');
  const sampled = new Set(input.processes.ok ? input.processes.value.map((p) => p.pid) : []);
  const comm = [...reads.keys()].filter((r) => /^proc\/\d+\/comm$/.test(r));
  assert.deepEqual(comm, [], 'no comm read');
  for (const [rel, n] of reads) {
    const m = /^proc\/(\d+)\/status$/.exec(rel);
    if (m) assert.equal(n, sampled.has(Number(m[1])) ? 2 : 1, `${rel} read ${n} times`);
  }
});
