// What makes a directory or archive a snapshot: a --root that has neither sysfs's node nor cpu
// directory is not one (a typo, /tmp, an unpacked archive one level too high), and reading it
// would describe a machine with one node and nothing in it. A machine without NUMA has no node
// directory (CONFIG_NUMA=n) and a trimmed fixture may lack cpu, so either one is enough.
import { UsageError } from '../model/errors.js';
import { listDir } from './read.js';
import type { SysRoot } from './root.js';

const NODE_DIR = 'sys/devices/system/node';
const CPU_DIR = 'sys/devices/system/cpu';

/** What the root lacks to be a snapshot, in words, or null when it is one. */
export function missingFromSnapshot(root: SysRoot): string | null {
  if (root.isReal) return null;
  const has = (rel: string) => listDir(root, rel) !== null;
  if (has(NODE_DIR) || has(CPU_DIR)) return null;
  if (!has('sys') && !has('proc')) return 'it has neither sys/ nor proc/';
  return `it has no ${NODE_DIR} and no ${CPU_DIR}`;
}

/** Refuses a --root that is not a snapshot (usage error, exit 2), naming what is missing. */
export function requireSnapshotShape(root: SysRoot, given: string): void {
  const missing = missingFromSnapshot(root);
  if (missing !== null) {
    throw new UsageError(
      `--root ${given}: not a snapshot: ${missing} (point --root at a directory or .tar.gz made by 'numakit snapshot')`,
    );
  }
}
