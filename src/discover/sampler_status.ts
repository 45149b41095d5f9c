// Stage 2 of the process sampler (process_sampler.ts) for a sample taken without it
// (statusLater): a process's name, thread count and allowed lists from /proc/PID/status, and
// its command line, read for the few samples a caller shows.
import type { ProcessSample } from '../model/stat.js';
import { isRefused } from '../model/fact.js';
import { readCmdline } from '../sysfs/proc_list.js';
import { type ProcStatus, readProcStatusFact } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

/** Status says the process has no memory resident (RSS) nor in hugetlbfs pages: a pass drops it. */
export const noResidentMemory = (s: ProcStatus) => s.rssBytes === 0 && (s.hugetlbBytes ?? 0) === 0;

/**
 * Stage 2 of a sample taken with statusLater: its name, thread count and allowed lists from
 * status, its command line. null when the process is gone, 'refused' when its status is refused
 * to this user, and null too when status says it has no resident memory left (a pass drops those).
 */
export function readDetails(root: SysRoot, s: ProcessSample): ProcessSample | null | 'refused' {
  const fact = readProcStatusFact(root, s.pid);
  if (isRefused(fact)) return 'refused';
  const status = fact.value;
  if (status === null || noResidentMemory(status)) return null;
  return {
    ...s,
    comm: status.name,
    cmdline: readCmdline(root, s.pid) ?? '',
    threads: status.threads,
    cpusAllowed: status.cpusAllowed,
    memsAllowed: status.memsAllowed,
  };
}
