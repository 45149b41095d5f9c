// SysRoot -> the large processes (>= 1 GiB resident) and where they may run, from
// /proc/PID/status alone (cheap: no numa_maps). doctor and apply decide a profile's placement
// from the same list, so they cannot disagree about it.
import { gathered, missing, type Gathered } from '../model/doctor_input.js';
import { LARGE_PROCESS_BYTES, type PlacedProcess } from '../model/placement.js';
import { listPids } from '../sysfs/proc_list.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

export function readPlacedProcesses(root: SysRoot): Gathered<PlacedProcess[]> {
  const pids = listPids(root);
  if (pids.length === 0) return missing('no processes under proc/ (a snapshot taken without --processes, or a container)');
  const out: PlacedProcess[] = [];
  for (const pid of pids) {
    const s = readProcStatus(root, pid);
    if (s === null || s.rssBytes < LARGE_PROCESS_BYTES) continue;
    out.push({ pid, comm: s.name, totalBytes: s.rssBytes, cpusAllowed: s.cpusAllowed, memsAllowed: s.memsAllowed });
  }
  return gathered(out, 'proc/*/status');
}
