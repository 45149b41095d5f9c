// The memory limit of a process's cgroup (v2): memory.max of its cgroup and of every ancestor,
// the smallest one counting ("max" is none). In a container /proc/self/cgroup says "0::/" and
// sys/fs/cgroup is the container's own cgroup, whose memory.max is the container's limit.
// v1 (memory.limit_in_bytes) is not read. Documentation/admin-guide/cgroup-v2.rst (Memory).
import { cleanText } from '../model/limits.js';
import { upward } from './cgroup_cpuset.js';
import { cgroupFile } from './cgroup_v2.js';
import { parseCount } from './parse_util.js';
import { parseProcCgroup } from './proc_cgroup.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** memory.max: bytes, or null for "max" (no limit). */
export function parseMemoryMax(text: string): number | null {
  return cleanText(text).trim() === 'max' ? null : parseCount(text);
}

export interface MemoryLimit {
  /** The cgroup whose memory.max is the smallest on the path, and that file (root-relative). */
  readonly cgroup: string;
  readonly path: string;
  readonly bytes: number;
}

/** The memory limit a process's cgroup and its ancestors put on it; null when none does (or unknown). */
export function readCgroupMemoryLimit(root: SysRoot, pid: number | 'self'): MemoryLimit | null {
  const cg = readParsed(root, `proc/${pid}/cgroup`, parseProcCgroup)?.v2 ?? null;
  if (cg === null) return null;
  let least: MemoryLimit | null = null;
  for (const dir of upward(cg)) {
    const path = cgroupFile(dir, 'memory.max');
    const bytes = readParsed(root, path, parseMemoryMax);
    if (bytes !== null && (least === null || bytes < least.bytes)) least = { cgroup: dir, path, bytes };
  }
  return least;
}
