// serve's device IRQ metrics on the generated capture: each device's interrupts on CPUs of its
// node and of other nodes add up to its rows of /proc/interrupts (read with only those rows
// parsed, and a CPU that served none left out), and an IRQ served off its device's node counts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { discoverTopology } from '../../../src/discover/topology.js';
import { Gaps } from '../../../src/serve/collect/context.js';
import { readDeviceIrqs } from '../../../src/serve/collect/irqs.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { TEST, writeScaleCapture } from '../../fixtures/scale_capture.js';

const base = mkdtempSync(join(tmpdir(), 'numakit-scale-irqs-'));
writeScaleCapture(base, TEST);
after(() => rmSync(base, { recursive: true, force: true }));

test('device IRQs: local + remote interrupts are the device rows of /proc/interrupts, split by node', () => {
  const root = openRoot(base);
  const t = discoverTopology(root);
  const gaps = new Gaps();
  const ds = readDeviceIrqs({ root, now: () => 0, deadline: Number.POSITIVE_INFINITY, gaps }, t);
  const rows = readFileSync(join(base, 'proc/interrupts'), 'utf8').split('\n');
  const cpus = rows[0]!
    .trim()
    .split(/\s+/)
    .map((h) => Number(h.slice(3)));
  const nodeOf = new Map(t.nodes.flatMap((n) => n.cpus.map((c) => [c, n.id] as const)));
  assert.equal(ds.length, 2 * TEST.sockets);
  for (const d of ds) {
    const dev = t.devices.find((x) => x.name === d.device)!;
    let local = 0;
    let remote = 0;
    for (const row of rows.slice(1)) {
      const f = row.trim().split(/\s+/);
      if (!dev.irqs.includes(Number(f[0]!.replace(':', '')))) continue;
      cpus.forEach((cpu, i) => {
        if (nodeOf.get(cpu) === d.node) local += Number(f[i + 1]);
        else remote += Number(f[i + 1]);
      });
    }
    assert.deepEqual([d.localInterrupts, d.remoteInterrupts], [local, remote], d.device);
    assert.ok(local + remote > 0, `${d.device}: some interrupts`);
  }
  assert.ok(
    ds.some((d) => d.remoteInterrupts > 0 && d.offNode > 0),
    'some IRQs served off their node',
  );
});
