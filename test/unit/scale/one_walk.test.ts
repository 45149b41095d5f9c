// doctor reads processes in one pass of the process sampler: each process's stat once (its name
// and size; the names of its daemons kept), the status of the sampled large processes once (where they may run), their
// numa_maps once (the largest's again for its memory policy), and no comm file: stat's comm is
// status's Name.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gatherDoctorInput } from '../../../src/discover/doctor_input.js';
import { DOCTOR_DAEMONS } from '../../../src/model/doctor_input.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-walk-'));
writeScaleCapture(base, TEST);
after(() => rmSync(base, { recursive: true, force: true }));

test('doctor reads each stat and status once and no comm', async () => {
  const reads = new Map<string, number>();
  const root = {
    ...openRoot(base),
    onAccess: (kind: string, rel: string) => {
      if (kind === 'file' && rel.startsWith('proc/')) reads.set(rel, (reads.get(rel) ?? 0) + 1);
    },
  };
  const input = await gatherDoctorInput(root);
  // By name: the daemons the rules look for, not every process (java runs here, and is not kept).
  assert.ok(input.comms.ok, 'processes by name');
  assert.deepEqual(
    Object.keys(input.comms.value).filter((n) => !DOCTOR_DAEMONS.includes(n)),
    [],
  );
  assert.ok(input.processes.ok && input.processes.value.length > 0, 'some processes sampled');
  const sampled = new Set(input.processes.ok ? input.processes.value.map((p) => p.pid) : []);
  const comm = [...reads.keys()].filter((r) => /^proc\/\d+\/comm$/.test(r));
  assert.deepEqual(comm, [], 'no comm read');
  for (const [rel, n] of reads) {
    const m = /^proc\/(\d+)\/(stat|status)$/.exec(rel);
    if (m) assert.equal(n, 1, `${rel} read ${n} times`);
    if (m?.[2] === 'status') assert.ok(sampled.has(Number(m[1])), `${rel}: not a sampled process`);
  }
  const stats = [...reads.keys()].filter((r) => /^proc\/\d+\/stat$/.test(r));
  assert.equal(stats.length, TEST.procs, 'every stat read');
});
