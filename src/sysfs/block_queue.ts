// /sys/class/block/DISK/queue/rq_affinity: where block I/O completions run.
// 0: wherever the IRQ fired; 1 (default): a CPU of the submitting CPU's group (shared cache);
// 2: forced onto the exact submitting CPU. See Documentation/ABI/stable/sysfs-block.
import { absent, present, type Fact } from '../model/fact.js';
import { parseAt, parseInteger } from './parse_util.js';
import { readFile } from './read.js';
import type { SysRoot } from './root.js';

export function rqAffinityPath(disk: string): string {
  return `sys/class/block/${disk}/queue/rq_affinity`;
}

export function readRqAffinity(root: SysRoot, disk: string): Fact<number> {
  const path = rqAffinityPath(disk);
  const r = readFile(root, path);
  return r.ok ? present(path, parseAt(path, r.text, parseInteger)) : absent(path, r.reason);
}
