// doctor reads the affinity of every device IRQ (1,024 on the large capture). In a captured tree
// (a jail) each proc/irq/N directory would cost an lstat at its first read (is it a link?): one
// listing of proc/irq says that of all of them. The affinities are those the IRQ files hold.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseCpuList } from '../../../src/model/cpuset.js';
import { readIrqAffinities } from '../../../src/sysfs/irq.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';
import { withFsCalls } from '../../helpers/fs_calls.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-irqdirs-'));
writeScaleCapture(base, { ...TEST, procs: 1, irqsPerDevice: 16 });
after(() => rmSync(base, { recursive: true, force: true }));

test('the affinities of many IRQs in a captured tree: no lstat of each proc/irq/N', () => {
  const irqs = readFileSync(join(base, 'proc/interrupts'), 'utf8')
    .split('\n')
    .map((l) => /^\s*(\d+):/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number);
  assert.ok(irqs.length >= 32, `${irqs.length} IRQs in the capture`);
  const { value, calls } = withFsCalls(['lstatSync'], () => readIrqAffinities(openRoot(base), irqs));
  const lstats = calls.get('lstatSync')!.filter((p) => p.includes('/proc/irq/'));
  assert.deepEqual(lstats, [], 'lstat of proc/irq/N directories');
  assert.equal(value.size, irqs.length);
  for (const irq of irqs) {
    const want = parseCpuList(readFileSync(join(base, `proc/irq/${irq}/smp_affinity_list`), 'utf8'));
    assert.deepEqual([...value.get(irq)!.affinity], want, `IRQ ${irq}`);
  }
});
