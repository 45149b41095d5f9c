// Stage 3 of the process sampler (process_sampler.ts): each thread's CPU ticks and the CPU it
// last ran on (/proc/PID/task/TID/stat), and CPU seconds per node over a window.
import { listNodeDirs, readNodeCpulist } from '../sysfs/node_list.js';
import type { ThreadUse } from '../model/stat.js';
import { listTids } from '../sysfs/proc_list.js';
import { ProcStatFiles, type ThreadFields } from '../sysfs/proc_stat_files.js';
import { CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import type { SysRoot } from '../sysfs/root.js';
import type { ThreadTicks } from './sampler_options.js';

/** CPU id -> node id, from nodeN/cpulist. */
export function readCpuNodes(root: SysRoot): Map<number, number> {
  const map = new Map<number, number>();
  for (const n of listNodeDirs(root)) for (const c of readNodeCpulist(root, n) ?? []) map.set(c, n);
  return map;
}

/** CPU ticks and last CPU of every thread of a process; null when the process is gone. */
export function readThreadTicks(
  root: SysRoot,
  pid: number,
  files: ProcStatFiles = new ProcStatFiles(root),
): Map<number, ThreadTicks> | null {
  const tids = listTids(root, pid);
  if (tids === null) return null;
  const out = new Map<number, ThreadTicks>();
  const t: ThreadFields = { ticks: 0, processor: 0 };
  for (const tid of tids) if (files.readThread(pid, tid, t)) out.set(tid, { ticks: t.ticks, processor: t.processor });
  return out;
}

/**
 * Seconds of CPU per node over a window: each thread's tick delta is put on the node of the
 * CPU it last ran on (a thread that ran on several nodes within the window is attributed to
 * its last one; short windows keep that error small). Threads born in the window count fully.
 */
export function cpuSecondsByNode(
  before: ReadonlyMap<number, ThreadTicks>,
  after: ReadonlyMap<number, ThreadTicks>,
  o: { cpuNode: ReadonlyMap<number, number> },
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tid, a] of after) {
    const delta = a.ticks - (before.get(tid)?.ticks ?? 0);
    const node = o.cpuNode.get(a.processor);
    if (delta <= 0 || node === undefined) continue;
    out[String(node)] = (out[String(node)] ?? 0) + delta / CLOCK_TICKS_PER_SECOND;
  }
  return out;
}

/** Each thread's CPU seconds between two readings and the node it last ran on. */
export function threadUseOf(
  t0: ReadonlyMap<number, ThreadTicks>,
  t1: ReadonlyMap<number, ThreadTicks>,
  cpuNode: ReadonlyMap<number, number>,
): ThreadUse[] {
  const out: ThreadUse[] = [];
  for (const [tid, a] of t1)
    out.push({
      tid,
      seconds: Math.max(0, a.ticks - (t0.get(tid)?.ticks ?? 0)) / CLOCK_TICKS_PER_SECOND,
      node: cpuNode.get(a.processor) ?? null,
    });
  return out;
}

/** CPU seconds of all of a process's threads between two readings. */
export function cpuSecondsSince(t0: ReadonlyMap<number, ThreadTicks>, t1: ReadonlyMap<number, ThreadTicks>): number {
  let ticks = 0;
  for (const [tid, a] of t1) ticks += Math.max(0, a.ticks - (t0.get(tid)?.ticks ?? 0));
  return ticks / CLOCK_TICKS_PER_SECOND;
}
