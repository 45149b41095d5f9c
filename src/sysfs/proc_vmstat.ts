// /proc/vmstat: system-wide VM counters, "name value" a line, the format of nodeN/vmstat.
// Memory tiering (pgpromote_*, pgdemote_*: Linux 5.18+/6.1+) and AutoNUMA (numa_*) counters
// appear only on kernels built with them: absent keys are absent facts.
import { parseNodeVmstat, type NodeVmstat } from './node_vmstat.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export function readProcVmstat(root: SysRoot): NodeVmstat | null {
  return readParsed(root, 'proc/vmstat', parseNodeVmstat);
}
