// Access locality from NUMA-balancing faults: the parser on /proc/PID/sched as the Debian 6.1
// kernel prints it (recorded in a 2-node lab guest), and the policy's table of cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskNumaFaults } from '../../../src/model/access_locality.js';
import { accessLocality, formatAccess } from '../../../src/policy/access_locality.js';
import { parseSchedNuma } from '../../../src/sysfs/proc_sched_numa.js';

// A node process that touched 128 MiB allocated on node 1 and was then moved to node 0's CPUs.
const SCHED_61 = `node (154, #threads: 7)
-------------------------------------------------------------------
se.exec_start                                :         10613.463720
nr_switches                                  :                  226
mm->numa_scan_seq                            :                    6
numa_pages_migrated                          :                  488
numa_preferred_nid                           :                    0
total_numa_faults                            :                  653
current_node=0, numa_group_id=0
numa_faults node=0 task_private=644 task_shared=0 group_private=0 group_shared=0
numa_faults node=1 task_private=9 task_shared=2 group_private=0 group_shared=0
`;

test('parseSchedNuma: current node and faults by node (private + shared)', () => {
  assert.deepEqual(parseSchedNuma(SCHED_61), { currentNode: 0, faults: { 0: 644, 1: 11 } });
  // NUMA balancing off: no fault lines.
  assert.deepEqual(parseSchedNuma('nr_switches : 3\n'), { currentNode: null, faults: {} });
  assert.throws(() => parseSchedNuma('numa_faults node=0 bogus\n'), /numa_faults node=N/);
});

const t = (currentNode: number | null, faults: Record<string, number>): TaskNumaFaults => ({ currentNode, faults });

const CASES: [string, (TaskNumaFaults | null)[], number | null, string | number][] = [
  ['all faults on the node it runs on', [t(0, { 0: 100, 1: 0 })], 1, 1],
  ['remote: its memory is on node 1, it runs on node 0', [t(0, { 0: 10, 1: 30 })], 1, 0.25],
  ['threads on different nodes each count their own node', [t(0, { 0: 10, 1: 10 }), t(1, { 1: 20 })], 1, 0.75],
  ['balancing off', [t(0, { 0: 1 })], 0, 'NUMA balancing is off'],
  ['no sched file', [null, null], 1, 'no /proc/PID/sched'],
  ['not scanned yet', [t(0, {})], 1, 'not scanned'],
  ['no recent faults', [t(0, { 0: 0, 1: 0 })], 1, 'no recent NUMA hinting faults'],
];

for (const [name, tasks, balancing, want] of CASES) {
  test(`accessLocality: ${name}`, () => {
    const a = accessLocality(tasks, balancing);
    if (typeof want === 'number') {
      assert.equal(a.kind, 'ok');
      assert.equal(a.kind === 'ok' && a.local, want);
    } else {
      assert.equal(a.kind, 'unavailable');
      assert.match(a.kind === 'unavailable' ? a.why : '', new RegExp(want.replace(/[/()]/g, '\\$&')));
      assert.equal(formatAccess(a), '-');
    }
  });
}
