// The memory limit of a process's cgroup: the smallest on the path from its cgroup up to the root
// of the hierarchy (a child's limit does not lift its parent's).
//   v2  memory.max of the unified hierarchy ("max" is none), the "0::/path" line of /proc/PID/cgroup
//   v1  memory.limit_in_bytes of the memory controller's hierarchy, the "N:memory:/path" line (also on a hybrid host, where the v2
//       hierarchy has no memory controller). "No limit" is PAGE_COUNTER_MAX pages in bytes
//       (9223372036854771712 on 4 KiB pages): any value beyond 2^53 is read as none, and a value
//       at or above the machine's memory limits nothing (plan: policy/plan/machine.ts).
// In a container /proc/self/cgroup names the host's path ("0::/" with a cgroup namespace), and the
// hierarchy's root files are the container's own cgroup: the root is always on the path.
// Each hierarchy is found where it is mounted (cgroup_mounts.ts: /proc/self/mountinfo).
// Documentation/admin-guide/cgroup-v2.rst (Memory), cgroup-v1/memory.rst.
import { SysfsParseError } from '../model/errors.js';
import { cleanText, isSafeDecimal } from '../model/limits.js';
import { upward } from './cgroup_cpuset.js';
import { cgroupDir, readCgroupHierarchies } from './cgroup_mounts.js';
import { parseCount } from './parse_util.js';
import { parseProcCgroup } from './proc_cgroup.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** memory.max (v2): bytes, or null for "max" (no limit). */
export function parseMemoryMax(text: string): number | null {
  return cleanText(text).trim() === 'max' ? null : parseCount(text);
}

/** memory.limit_in_bytes (v1): bytes, or null for the kernel's "no limit" (beyond 2^53). */
export function parseMemoryLimitInBytes(text: string): number | null {
  const s = cleanText(text).trim();
  if (!/^\d+$/.test(s)) throw new SysfsParseError('not a byte count', { text: s });
  return isSafeDecimal(s) ? Number(s) : null;
}

export interface MemoryLimit {
  /** The cgroup whose limit is the smallest on the path, and that file (root-relative). */
  readonly cgroup: string;
  readonly path: string;
  readonly bytes: number;
}

/** Which file of each hierarchy keeps the limit, and how it says "none". */
const LIMITS = {
  v2: { file: 'memory.max', parse: parseMemoryMax },
  v1: { file: 'memory.limit_in_bytes', parse: parseMemoryLimitInBytes },
} as const;

/** The memory limit a process's cgroup and its ancestors put on it; null when none does (or unknown). */
export function readCgroupMemoryLimit(root: SysRoot, pid: number | 'self'): MemoryLimit | null {
  const p = readParsed(root, `proc/${pid}/cgroup`, parseProcCgroup);
  if (p === null) return null;
  const cg = p.memoryV1 ?? p.v2;
  if (cg === null) return null;
  const v1 = p.memoryV1 !== null;
  const { file, parse } = LIMITS[v1 ? 'v1' : 'v2'];
  const h = readCgroupHierarchies(root);
  const mount = v1 ? h.memory : h.v2;
  if (mount === null) return null;
  let least: MemoryLimit | null = null;
  for (const dir of upward(cg)) {
    const base = cgroupDir(mount, dir);
    if (base === null) continue; // above the part of the hierarchy mounted here
    const path = `${base}/${file}`;
    const bytes = readParsed(root, path, parse);
    if (bytes !== null && (least === null || bytes < least.bytes)) least = { cgroup: dir, path, bytes };
  }
  return least;
}
