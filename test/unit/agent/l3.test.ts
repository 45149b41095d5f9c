// The agent's CPUs inside a node (policy/agent/l3.ts): on a node of several L3 groups, a process
// placed on that one node whose need fits one group gets that group's CPUs; the group it is
// bound inside while it still fits, else the most idle, else the lowest. A table, then place()
// end to end, then the layout the running agent reads (L3 groups of epyc-nps4).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MachineFiles, readLayout } from '../../../src/agent/machine.js';
import { EXAMPLES_DIR } from '../../../src/cli/examples_dir.js';
import { chooseL3 } from '../../../src/policy/agent/l3.js';
import { place } from '../../../src/policy/agent/place.js';
import type { NodeView } from '../../../src/policy/agent/types.js';
import { openRoot } from '../../../src/sysfs/root.js';
import { nodes, opts, proc } from './build.js';

/** Node 1 of a 2-node machine: CPUs 8-15, two L3 groups (8-11, 12-15) with the idle CPUs given. */
function machine(idle: [number, number] | null): NodeView[] {
  const [n0, n1] = nodes(2, { cpusPer: 8 });
  return [
    n0!,
    {
      ...n1!,
      idleCpus: idle === null ? 8 : idle[0] + idle[1],
      ...(idle === null
        ? {}
        : {
            l3: [
              { cpus: [8, 9, 10, 11], idleCpus: idle[0] },
              { cpus: [12, 13, 14, 15], idleCpus: idle[1] },
            ],
          }),
    },
  ];
}

const ALL = Array.from({ length: 16 }, (_, i) => i);

describe('chooseL3: which L3 group of a node a process gets', () => {
  const cases: {
    name: string;
    idle: [number, number] | null;
    need: number;
    allowed?: number[];
    permitted?: number[];
    want: number[] | null;
  }[] = [
    { name: 'fits either, equally idle: the lowest', idle: [4, 4], need: 2, want: [8, 9, 10, 11] },
    { name: 'the most idle group', idle: [1, 4], need: 2, want: [12, 13, 14, 15] },
    { name: 'fits only the idle one', idle: [1, 3], need: 3, want: [12, 13, 14, 15] },
    {
      name: 'bound inside a group that still fits (its own CPU counts as room): stays',
      idle: [4, 1],
      need: 3,
      allowed: [12, 13, 14, 15],
      want: [12, 13, 14, 15],
    },
    { name: 'needs more than a group has: the whole node', idle: [4, 4], need: 5, want: null },
    { name: 'no group has room: the whole node', idle: [1, 1], need: 2, want: null },
    { name: 'a node of one L3: the whole node', idle: null, need: 1, want: null },
    {
      name: 'only the CPUs it may use (cgroup cpuset)',
      idle: [4, 4],
      need: 2,
      permitted: [0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15],
      want: [13, 14, 15],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = machine(c.idle)[1]!;
      const p = proc({
        mem: { 1: 512 },
        // Its need runs on node 1 now (counted as its own use there).
        cpu: { 1: c.need },
        cpusPermitted: c.permitted ?? ALL,
        ...(c.allowed ? { cpusAllowed: c.allowed } : {}),
      });
      assert.deepEqual(chooseL3(p, node, { need: c.need, slack: 0.25 }), c.want);
    });
  }
});

describe('place() gives a one-node placement the L3 group, a two-node one every CPU', () => {
  it('a 2-CPU process with its memory on node 1 moves its threads to one L3 of node 1', () => {
    const p = proc({ mem: { 1: 512 }, cpu: { 0: 2 }, cpusPermitted: ALL });
    const r = place(p, machine([4, 4]), opts({ tune: 'threads' }));
    assert.ok(r.ok);
    assert.deepEqual(r.placement.nodes, [1]);
    assert.deepEqual(r.placement.cpus, [8, 9, 10, 11]);
  });

  it('without L3 groups the same process gets all of node 1', () => {
    const p = proc({ mem: { 1: 512 }, cpu: { 0: 2 }, cpusPermitted: ALL });
    const r = place(p, machine(null), opts({ tune: 'threads' }));
    assert.ok(r.ok);
    assert.deepEqual(r.placement.cpus, [8, 9, 10, 11, 12, 13, 14, 15]);
  });
});

describe('the running agent reads each node’s L3 groups', () => {
  it('epyc-nps4: node 0 has the CCX 0-3,32-35 and 4-7,36-39', () => {
    const layout = readLayout(new MachineFiles(openRoot(join(EXAMPLES_DIR, 'epyc-nps4'))), null);
    assert.deepEqual(layout.nodes[0]!.l3, [
      [0, 1, 2, 3, 32, 33, 34, 35],
      [4, 5, 6, 7, 36, 37, 38, 39],
    ]);
  });
});
