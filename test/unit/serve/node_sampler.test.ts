// discover/node_sampler.ts: the one rule for idle CPUs, as a table, and the agent's and the
// exporter's idle CPUs per node agreeing on the same two readings of /proc/stat (before it they
// had two rules: unknown CPUs counted idle in one and null in the other, and the exporter scaled
// by wall-clock seconds where the agent used each CPU's own ticks).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MachineFiles, readLayout, readMachine } from '../../../src/agent/machine.js';
import { cpuIdleShare, nodeCpuWindow, type CpuReading } from '../../../src/discover/node_sampler.js';
import { Gaps, type CollectContext } from '../../../src/serve/collect/context.js';
import { NodeCpuCollector } from '../../../src/serve/collect/node_cpu.js';
import { parseProcStat } from '../../../src/sysfs/proc_stat.js';
import { realisticFourNode } from './helpers.js';

const r = (...cpus: [number, number, number][]): CpuReading =>
  new Map(cpus.map(([c, busy, total]) => [c, { busy, total }]));

describe('node sampler: the one rule for idle CPUs', () => {
  const cases: [string, CpuReading | null, CpuReading, number[], number | null, number | null][] = [
    // name, before, after, node's CPUs, idle CPUs, busy CPUs
    ['a quarter busy on each of two CPUs', r([0, 0, 0], [1, 0, 0]), r([0, 50, 200], [1, 50, 200]), [0, 1], 1.5, 0.5],
    ['each CPU by its own ticks', r([0, 0, 0], [1, 0, 0]), r([0, 100, 100], [1, 0, 400]), [0, 1], 1, 1],
    ['no earlier reading: unknown, not idle', null, r([0, 50, 200]), [0], null, null],
    ['a CPU just onlined is left out; the others count', r([0, 0, 0]), r([0, 0, 100], [1, 0, 100]), [0, 1], 1, 0],
    ['no ticks passed: unknown', r([0, 10, 100]), r([0, 10, 100]), [0], null, null],
    ['busy beyond all (a counter glitch) clamps to fully busy', r([0, 0, 0]), r([0, 300, 200]), [0], 0, 1],
    ['a memory-only node (no CPUs): unknown', r([0, 0, 0]), r([0, 0, 100]), [], null, null],
    [
      'a CPU offline now (not in the later reading) is not counted',
      r([0, 0, 0], [1, 0, 0]),
      r([0, 0, 100]),
      [0, 1],
      1,
      0,
    ],
  ];
  for (const [name, b, a, cpus, idle, busy] of cases)
    it(name, () => {
      const w = nodeCpuWindow(cpus, b, a);
      assert.equal(w.idleCpus, idle);
      assert.equal(w.busyCpus, busy);
    });

  it('cpuIdleShare: null without both readings', () => {
    assert.equal(cpuIdleShare(undefined, { busy: 1, total: 2 }), null);
    assert.equal(cpuIdleShare({ busy: 0, total: 0 }, undefined), null);
    assert.equal(cpuIdleShare({ busy: 0, total: 0 }, { busy: 1, total: 4 }), 0.75);
  });
});

describe("node sampler: the agent's and the exporter's idle CPUs agree", () => {
  let fx: ReturnType<typeof realisticFourNode>;
  before(() => (fx = realisticFourNode()));
  after(() => fx.remove());

  /** /proc/stat with CPU c at busy[c] busy and idle[c] idle ticks. */
  const stat = (busy: number[], idle: number[]) =>
    `cpu  0 0 0 0\n${busy.map((b, c) => `cpu${c} ${b} 0 0 ${idle[c]} 0 0 0 0 0 0`).join('\n')}\n`;

  it('on the same two readings, per node', () => {
    // 4 s apart but only 2 s of ticks on each CPU (a guest's stolen time, a tickless CPU): the
    // answer is the CPUs' own ticks, whatever the wall clock says.
    const t0 = stat([100, 100, 100, 100, 100, 100, 100, 100], [900, 900, 900, 900, 900, 900, 900, 900]);
    const t1 = stat([150, 300, 100, 250, 190, 100, 120, 300], [1050, 900, 1100, 950, 1010, 1100, 1080, 900]);
    let now = 0;
    const c = (): CollectContext => ({ root: fx.root, now: () => now, deadline: Infinity, gaps: new Gaps() });
    const serve = new NodeCpuCollector();
    writeFileSync(join(fx.dir, 'proc/stat'), t0);
    serve.read(c());
    now = 4000;
    writeFileSync(join(fx.dir, 'proc/stat'), t1);
    const exported = serve.read(c());
    const layout = readLayout(new MachineFiles(fx.root), null);
    const agent = readMachine(fx.root, layout, parseProcStat(t0), parseProcStat(t1));
    assert.equal(agent.nodes.length, exported.length);
    for (const n of agent.nodes) {
      const e = exported.find((x) => x.node === n.id)!;
      assert.ok(
        e.idleCpus !== null && Math.abs(e.idleCpus - n.idleCpus) < 1e-9,
        `node ${n.id}: agent ${n.idleCpus}, exporter ${e.idleCpus}`,
      );
    }
    assert.ok(
      agent.nodes.some((n) => n.idleCpus > 0 && n.idleCpus < n.cpus.length),
      'a node partly idle',
    );
  });
});
