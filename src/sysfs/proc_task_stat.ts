// /proc/PID/stat and /proc/PID/task/TID/stat: one line of space-separated fields, see proc(5).
// Field 2 (comm) is in parentheses and may itself contain spaces and ')', so the fields after
// it are counted from the LAST ')'. utime/stime (14, 15) are in clock ticks (USER_HZ, 100 on
// every Linux architecture: the kernel converts to USER_HZ for /proc); processor (39) is the
// CPU the task last ran on; starttime (22) tells a task from a later one that reuses its id.
import { SysfsParseError } from '../model/errors.js';
import { MAX_CPUS } from '../model/limits.js';
import type { Fact } from '../model/fact.js';
import { readFact, readParsed } from './read_parsed.js';
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
  /** Virtual memory size in bytes (field 23): 0 for a kernel thread, which has no mm. */
  readonly vsizeBytes: number;
  /** minflt + majflt (fields 10, 12): page faults of the task (the whole process in /proc/PID/stat). */
  readonly faults: number;
}

/** The fields read, by number (field 3 is state). */
const WANTED = [10, 12, 14, 15, 20, 22, 23, 24, 39] as const;

/**
 * One scan of the line, no split: the agent reads a stat per process and per busy thread each
 * pass, and the other 45 fields are never looked at. Each field read must be a count.
 */
export function parseTaskStat(text: string): TaskStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new SysfsParseError('no (comm) in stat', { text: text.trim() });
  const got = new Map<number, number>();
  let state = '?';
  let field = 2;
  let at = close + 1;
  for (let w = 0; w < WANTED.length; ) {
    while (at < text.length && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 10)) at++;
    if (at >= text.length) break;
    field++;
    const start = at;
    while (at < text.length && text.charCodeAt(at) !== 32 && text.charCodeAt(at) !== 10) at++;
    if (field === 3) state = text.slice(start, at);
    if (field !== WANTED[w]) continue;
    w++;
    let v = 0;
    let ok = at > start;
    for (let k = start; k < at && ok; k++) {
      const c = text.charCodeAt(k) - 48;
      ok = c >= 0 && c <= 9;
      v = v * 10 + c;
    }
    if (ok && Number.isSafeInteger(v)) got.set(field, v);
  }
  const num = (f: number) => {
    const v = got.get(f);
    if (v === undefined) throw new SysfsParseError(`stat field ${f} is not a count`, { text: text.trim() });
    return v;
  };
  const cpuTicks = num(14) + num(15);
  const startTicks = num(22);
  const threads = num(20);
  const rssPages = num(24);
  const vsizeBytes = num(23);
  const processor = num(39);
  if (processor >= MAX_CPUS) throw new SysfsParseError('stat field 39 is not a CPU id', { text: text.trim() });
  const faults = num(10) + num(12);
  return {
    comm: text.slice(open + 1, close),
    state,
    cpuTicks,
    processor,
    startTicks,
    threads,
    rssPages,
    vsizeBytes,
    faults,
  };
}

/** Stat of a process (whole-process CPU time), or null when it is gone. */
export function readProcStat(root: SysRoot, pid: number): TaskStat | null {
  return readProcStatFact(root, pid).value;
}

/** The same, absent with why: 'no-permission' is a process hidden from this user (hidepid), not one gone. */
export function readProcStatFact(root: SysRoot, pid: number): Fact<TaskStat> {
  return readFact(root, `proc/${pid}/stat`, parseTaskStat);
}

/** Stat of one thread, or null when it is gone. */
export function readTaskStat(root: SysRoot, pid: number, tid: number): TaskStat | null {
  return readParsed(root, `proc/${pid}/task/${tid}/stat`, parseTaskStat);
}
