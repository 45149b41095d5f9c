// /proc/vmstat: system-wide VM counters, "name value" a line, the format of nodeN/vmstat.
// Memory tiering (pgpromote_*, pgdemote_*: Linux 5.18+/6.1+) and AutoNUMA (numa_*) counters
// appear only on kernels built with them: absent keys are absent facts.
import { parseNodeVmstat, type NodeVmstat } from './node_vmstat.js';
import { parseAt } from './parse_util.js';
import { readText } from './read.js';
import type { SysRoot } from './root.js';

export function readProcVmstat(root: SysRoot): NodeVmstat | null {
  const text = readText(root, 'proc/vmstat');
  return text === null ? null : parseAt('proc/vmstat', text, parseNodeVmstat);
}
