// Resources used by the waited-for children of this process (getrusage(RUSAGE_CHILDREN)).
// The kernel adds a child's usage, and that of the descendants it waited for, when the child
// is reaped (kernel/exit.c wait_task_zombie), whoever reaps it: libuv's waitpid() included.
// So the difference across one child's life is exactly that child's process tree.
import type { Rusage } from '../model/bench.js';
import { fail, libc } from './libc.js';

const RUSAGE_CHILDREN = -1;

/**
 * struct rusage on 64-bit Linux: two struct timeval (seconds, microseconds), then 14 longs:
 * maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock, msgsnd, msgrcv,
 * nsignals, nvcsw, nivcsw.
 */
export function parseRusage(raw: BigInt64Array): Rusage {
  const n = (i: number) => Number(raw[i]!);
  return {
    userS: n(0) + n(1) / 1e6,
    systemS: n(2) + n(3) / 1e6,
    maxRssKb: n(4),
    minorFaults: n(8),
    majorFaults: n(9),
    voluntaryCtxSwitches: n(16),
    involuntaryCtxSwitches: n(17),
  };
}

/** Usage of every child of this process reaped so far (and their waited-for descendants). */
export function childrenRusage(): Rusage {
  const raw = new BigInt64Array(18);
  if (libc().getrusage(RUSAGE_CHILDREN, raw) < 0) fail('getrusage', { target: 'RUSAGE_CHILDREN' });
  return parseRusage(raw);
}
