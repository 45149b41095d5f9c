// The agent's door to threads and pages: what the loop and restore do to a process, behind an
// interface so that unit tests run the loop with a fake and only the real one loads koffi.
import { readTaskStat } from '../sysfs/proc_task_stat.js';
import { listTids } from '../sysfs/proc_list.js';
import type { SysRoot } from '../sysfs/root.js';

export interface ThreadInfo {
  readonly tid: number;
  /** starttime in clock ticks after boot (tells this thread from a later one with its id). */
  readonly start: number;
  readonly comm: string;
}

export interface ThreadOps {
  /** Threads of a process; null when it is gone. */
  threads(pid: number): ThreadInfo[] | null;
  /** starttime of a thread of pid; null when gone. */
  threadStart(pid: number, tid: number): number | null;
  getAffinity(tid: number): number[];
  setAffinity(tid: number, cpus: readonly number[]): void;
  /** Moves the process's pages on `from` to `to`; returns pages not moved. */
  migratePages(pid: number, from: readonly number[], to: readonly number[]): number;
}

/** Reads of /proc under `root`, for any ThreadOps. */
export function procThreads(root: SysRoot, pid: number): ThreadInfo[] | null {
  const tids = listTids(root, pid);
  if (tids === null) return null;
  const out: ThreadInfo[] = [];
  for (const tid of tids) {
    const s = readTaskStat(root, pid, tid);
    if (s !== null) out.push({ tid, start: s.startTicks, comm: s.comm });
  }
  return out;
}

/** The real one: /proc reads plus sched_{get,set}affinity and migrate_pages (koffi, loaded on first use). */
export async function nativeOps(root: SysRoot): Promise<ThreadOps> {
  const native = await import('../native/index.js');
  return {
    threads: (pid) => procThreads(root, pid),
    threadStart: (pid, tid) => readTaskStat(root, pid, tid)?.startTicks ?? null,
    getAffinity: (tid) => native.getAffinity(tid),
    setAffinity: (tid, cpus) => native.setAffinity(tid, cpus),
    migratePages: (pid, from, to) => native.migratePages(pid, { from, to }),
  };
}
