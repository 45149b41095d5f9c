// /proc/PID/stat and /proc/PID/task/TID/stat: one line of space-separated fields, see proc(5).
// Field 2 (comm) is in parentheses and may itself contain spaces and ')', so the fields after
// it are counted from the LAST ')'. utime/stime (14, 15) are in clock ticks (USER_HZ, 100 on
// every Linux architecture: the kernel converts to USER_HZ for /proc); processor (39) is the
// CPU the task last ran on; starttime (22) tells a task from a later one that reuses its id.
import { SysfsParseError } from '../model/errors.js';
import { isSafeDecimal, MAX_CPUS } from '../model/limits.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** USER_HZ: the unit of utime/stime in /proc (fixed at 100 by the kernel ABI). */
export const CLOCK_TICKS_PER_SECOND = 100;

export interface TaskStat {
  readonly comm: string;
  readonly state: string;
  /** utime + stime, in clock ticks. */
  readonly cpuTicks: number;
  /** CPU the task last ran on. */
  readonly processor: number;
  /** starttime (field 22): clock ticks after boot the task started; with the id, it names one task. */
  readonly startTicks: number;
  /** num_threads (field 20). */
  readonly threads: number;
  /** Resident pages (field 24; hugetlbfs pages are not counted). */
  readonly rssPages: number;
}

export function parseTaskStat(text: string): TaskStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new SysfsParseError('no (comm) in stat', { text: text.trim() });
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const num = (field: number) => {
    const v = rest[field - 3];
    if (v === undefined || !/^\d+$/.test(v) || !isSafeDecimal(v)) throw new SysfsParseError(`stat field ${field} is not a count`, { text: text.trim() });
    return Number(v);
  };
  const cpuTicks = num(14) + num(15);
  const startTicks = num(22);
  const threads = num(20);
  const rssPages = num(24);
  const processor = num(39);
  if (processor >= MAX_CPUS) throw new SysfsParseError('stat field 39 is not a CPU id', { text: text.trim() });
  return { comm: text.slice(open + 1, close), state: rest[0] ?? '?', cpuTicks, processor, startTicks, threads, rssPages };
}

/** Stat of a process (whole-process CPU time), or null when it is gone. */
export function readProcStat(root: SysRoot, pid: number): TaskStat | null {
  return readParsed(root, `proc/${pid}/stat`, parseTaskStat);
}

/** Stat of one thread, or null when it is gone. */
export function readTaskStat(root: SysRoot, pid: number, tid: number): TaskStat | null {
  return readParsed(root, `proc/${pid}/task/${tid}/stat`, parseTaskStat);
}
