// /sys/class/block/DISK/queue/rq_affinity: where block I/O completions run.
// 0: wherever the IRQ fired; 1 (default): a CPU of the submitting CPU's group (shared cache);
// 2: forced onto the exact submitting CPU. See Documentation/ABI/stable/sysfs-block.
import type { Fact } from '../model/fact.js';
import { integerIn } from './parse_util.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

export function rqAffinityPath(disk: string): string {
  return `sys/class/block/${disk}/queue/rq_affinity`;
}

export function readRqAffinity(root: SysRoot, disk: string): Fact<number> {
  return readFact(root, rqAffinityPath(disk), integerIn(0, 2));
}
