// plan service --bandwidth-bound on a tiered machine: an instance whose node has a memory-only
// node nearest it is weighted-interleaved over both when the bandwidths add 10% or more (HMAT),
// else bound, the arithmetic shown either way; the drop-in runs it through `numakit run -w`
// (systemd has no NUMAPolicy= for it) and passes systemd-analyze verify. Machine: examples/cxl-3node
// (node 2 memory-only, nearest node 0) with HMAT read bandwidths added.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { discoverTopology } from '../../../src/discover/topology.js';
import { planWorkload } from '../../../src/policy/plan/index.js';
import { machineShare } from '../../../src/policy/plan/machine.js';
import type { ServiceDecision } from '../../../src/policy/plan/service.js';
import { renderPlan } from '../../../src/render/plan/index.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { needTools } from '../../helpers/tools.js';
import { EXAMPLES } from './machines.js';
import { checkUnits, isUnit } from './validators.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** cxl-3node with HMAT read bandwidths (MB/s) per node; null: no HMAT at all. */
function tiered(bw: number[] | null) {
  const dir = mkdtempSync(join(tmpdir(), 'numakit-plan-wi-'));
  dirs.push(dir);
  cpSync(join(EXAMPLES, 'cxl-3node'), dir, { recursive: true, verbatimSymlinks: true });
  bw?.forEach((mbps, n) => {
    const d = join(dir, `sys/devices/system/node/node${n}/access0/initiators`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'read_bandwidth'), `${mbps}\n`);
  });
  const root = openRoot(dir, 'tiered');
  return machineShare({ topology: discoverTopology(root), label: 'tiered', os: null, cgroup: { mems: null } });
}

const RAW = { name: 'stream', exec: '/usr/local/bin/stream', 'per-node': true, 'bandwidth-bound': true };

function plan(bw: number[] | null, raw: Record<string, string | boolean> = RAW): ServiceDecision {
  return planWorkload('service', tiered(bw), raw) as ServiceDecision;
}

describe('plan service --bandwidth-bound', () => {
  it('spreads node 0 over 0,2 when node 2 adds half its bandwidth; node 1, with no slower node, stays bound', () => {
    const d = plan([20000, 20000, 10000]);
    assert.deepEqual(
      d.instances.map((i) => i.weighted?.mask ?? 'bound'),
      ['0,2', 'bound'],
    );
    const row = d.derivations.find((x) => x.what === 'memory of the instance on node 0')!;
    assert.equal(
      row.formula,
      '20000 + 10000 = 30000 MB/s over nodes 0,2 against 20000 MB/s bound: x1.5 >= x1.1; weights 2:1 in proportion to the bandwidth',
    );
    assert.equal(d.instances[0]!.weighted?.weights, '0:2 1:2 2:1');
    // Node 0 holds 2/3 of the pages: its cgroup may hold its budget / (2/3).
    assert.equal(d.instances[0]!.memoryMaxMib, Math.floor((d.instances[1]!.memoryMaxMib * 3) / 2));
    assert.ok(d.notes.some((n) => n.includes('numakit apply --interleave-weights hmat --yes')));
  });

  it('stays bound when the slower node adds less than 10%, saying the arithmetic', () => {
    const d = plan([20000, 20000, 1500]);
    assert.ok(d.instances.every((i) => i.weighted === undefined));
    assert.equal(
      d.derivations.find((x) => x.what === 'memory of the instance on node 0')?.formula,
      '20000 + 1500 = 21500 MB/s over nodes 0,2 against 20000 MB/s bound: x1.08 < x1.1',
    );
    assert.ok(!d.notes.some((n) => n.includes('--interleave-weights')));
  });

  it('stays bound without HMAT, saying how to measure instead', () => {
    const d = plan(null);
    assert.ok(d.instances.every((i) => i.weighted === undefined));
    assert.match(
      d.derivations.find((x) => x.what === 'memory of the instance on node 0')!.formula,
      /HMAT gives no read bandwidth for node 0, 1, 2/,
    );
  });

  it('without --bandwidth-bound nothing changes: every instance bound', () => {
    const d = plan([20000, 20000, 10000], { name: 'stream', exec: '/usr/local/bin/stream', 'per-node': true });
    assert.ok(d.instances.every((i) => i.weighted === undefined));
    assert.ok(!d.derivations.some((x) => x.what.startsWith('memory of the instance')));
  });

  it('the weighted drop-in runs the program through numakit run -w, and systemd-analyze verify passes', async (t) => {
    const files = await renderPlan(plan([20000, 20000, 10000]));
    const dropIn = files.find((f) => f.path === '/etc/systemd/system/stream@0.service.d/50-numakit-numa.conf')!;
    assert.match(
      dropIn.content,
      /\[Service\]\nCPUAffinity=0-7,16-23\nExecStart=\nExecStart=numakit run --weighted-interleave=0,2 -- \/usr\/local\/bin\/stream\nMemoryMax=\d+M\n/,
    );
    assert.doesNotMatch(dropIn.content, /NUMAPolicy/);
    if (!needTools(t, 'systemd-analyze')) return;
    // numakit itself where systemd's search path finds it (/usr/local/bin for an npm install).
    assert.equal(checkUnits(files.filter(isUnit), [], ['/usr/local/bin/numakit']), '');
  });
});
