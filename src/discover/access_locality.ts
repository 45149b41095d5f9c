// What a process's access locality is computed from (policy/access_locality.ts): every thread's
// NUMA-balancing faults (proc/PID/task/TID/sched) and kernel.numa_balancing (the PMU source:
// discover/pmu_access.ts).
import type { TaskNumaFaults } from '../model/access_locality.js';
import { listTids } from '../sysfs/proc_list.js';
import { readSchedNuma } from '../sysfs/proc_sched_numa.js';
import { readText } from '../sysfs/read.js';
import type { SysRoot } from '../sysfs/root.js';

/** kernel.numa_balancing (0 off, 1 on, 2 tiering, 3 both); null when unknown. */
export function readNumaBalancing(root: SysRoot): number | null {
  const t = readText(root, 'proc/sys/kernel/numa_balancing');
  const n = t === null ? Number.NaN : Number(t.trim());
  return Number.isInteger(n) ? n : null;
}

/** Each thread's NUMA fault statistics (null: its sched file is absent); the process's own without threads. */
export function readTaskNumaFaults(root: SysRoot, pid: number): (TaskNumaFaults | null)[] {
  const tids = listTids(root, pid) ?? [];
  return tids.length > 0 ? tids.map((tid) => readSchedNuma(root, pid, tid)) : [readSchedNuma(root, pid)];
}
