// The NUMA-balancing fault statistics of a task, from /proc/PID/sched or /proc/PID/task/TID/sched
// (CONFIG_SCHED_DEBUG; kernel/sched/debug.c, print_numa_stats): "current_node=N, numa_group_id=G"
// and one "numa_faults node=N task_private=P task_shared=S group_private=.. group_shared=.." line
// per online node. The task_* counts are the task's recent NUMA hinting faults on memory placed on
// node N (a decaying average, halved at each scan period: kernel/sched/fair.c, task_numa_placement),
// so they say which nodes its memory accesses hit lately. The lines are there only while
// kernel.numa_balancing is on and the task has been scanned.
import type { TaskNumaFaults } from '../model/access_locality.js';
import { SysfsParseError } from '../model/errors.js';
import { readFile } from './read.js';
import { parseOrWarn } from './read_parsed.js';
import type { SysRoot } from './root.js';

export type SchedNuma = TaskNumaFaults;

export function parseSchedNuma(text: string): SchedNuma {
  let currentNode: number | null = null;
  const faults: Record<string, number> = {};
  text.split('\n').forEach((line, i) => {
    const cur = /^current_node=(-?\d+)/.exec(line);
    if (cur) currentNode = Number(cur[1]) < 0 ? null : Number(cur[1]);
    if (!line.startsWith('numa_faults node=')) return;
    const m = /^numa_faults node=(\d+) task_private=(\d+) task_shared=(\d+)/.exec(line);
    if (!m)
      throw new SysfsParseError('not a "numa_faults node=N task_private=P task_shared=S" line', {
        line: i + 1,
        text: line,
      });
    faults[m[1]!] = (faults[m[1]!] ?? 0) + Number(m[2]) + Number(m[3]);
  });
  return { currentNode, faults };
}

/** A task's statistics; null when the file is absent (task gone, or a kernel without CONFIG_SCHED_DEBUG) or unparseable. */
export function readSchedNuma(root: SysRoot, pid: number, tid?: number): SchedNuma | null {
  const path = tid === undefined ? `proc/${pid}/sched` : `proc/${pid}/task/${tid}/sched`;
  const r = readFile(root, path);
  return r.ok ? parseOrWarn(root, path, r.text, parseSchedNuma) : null;
}
