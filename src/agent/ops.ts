// The agent's door to threads and pages: what the loop and restore do to a process, behind an
// interface so that unit tests run the loop with a fake (and inject faults: ESRCH mid-move,
// EBUSY pages, ENOMEM on the target node) and only the real one loads koffi.
import { readAnonRanges, type AnonRange } from '../discover/anon_ranges.js';
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
  /** Anonymous mappings with their pages per node; null when the process is gone. */
  anonRanges(pid: number): AnonRange[] | null;
  /**
   * move_pages(2) on the first `count` addresses of `pages` (64-bit words, PageAddresses):
   * moves page i to nodes[i], or with `nodes` null only says where each page is. Fills `status`
   * (a node, or -errno for that page: EBUSY, EACCES, ENOENT ...) and returns the kernel's count
   * of pages not moved. A failed call throws an error whose `code` is the errno name (ESRCH:
   * the process is gone; ENOMEM: no memory on a target node).
   */
  movePages(pid: number, count: number, pages: Uint32Array, nodes: Int32Array | null, status: Int32Array): number;
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

/** The real one: /proc reads plus sched_{get,set}affinity and move_pages (koffi, loaded on first use). */
export async function nativeOps(root: SysRoot): Promise<ThreadOps> {
  // The two syscall modules it uses, not the whole of src/native: fewer files to load at start-up
  // (each costs a 9p round trip and a compile in a TCG lab guest).
  const [affinity, pages] = await Promise.all([import('../native/affinity.js'), import('../native/move_pages.js')]);
  const native = { ...affinity, ...pages };
  return {
    threads: (pid) => procThreads(root, pid),
    threadStart: (pid, tid) => readTaskStat(root, pid, tid)?.startTicks ?? null,
    getAffinity: (tid) => native.getAffinity(tid),
    setAffinity: (tid, cpus) => native.setAffinity(tid, cpus),
    anonRanges: (pid) => readAnonRanges(root, pid),
    movePages: (pid, count, pages, nodes, status) => native.movePagesInto(pid, count, pages, nodes, status),
  };
}
