// The CPUs (and memory nodes) the cgroup of a process allows: cgroup v2 cpuset.cpus.effective (what the kernel
// enforces, inherited from the nearest ancestor that has the cpuset controller), or v1
// cpuset.effective_cpus / cpuset.cpus of the v1 cpuset hierarchy (effective_cpus / cpus on the legacy
// cpuset filesystem), each found where it is mounted (cgroup_mounts.ts). hwloc calls this the
// "allowed" cpuset. In a container /proc/self/cgroup says "0::/" and sys/fs/cgroup is the
// container's own cgroup: its root files are the container's limits. A kernel with cpusets but
// no cgroups (the legacy cpuset filesystem alone) has /proc/PID/cpuset and no /proc/PID/cgroup:
// the cpuset's path is read there, as hwloc does (hwloc_read_linux_cgroup_name).
// Documentation/admin-guide/cgroup-v2.rst (Cpuset), cgroup-v1/cpusets.rst.
import { parseCpuList } from '../model/cpuset.js';
import type { CpusetRestriction } from '../model/topology.js';
import { type CgroupHierarchies, cgroupDir, readCgroupHierarchies } from './cgroup_mounts.js';
import { type CgroupPaths, parseProcCgroup } from './proc_cgroup.js';
import { readFile } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** A cgroup and its ancestors: "/a/b" -> ["/a/b", "/a", "/"]. */
export function upward(cgroup: string): string[] {
  const parts = cgroup.split('/').filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.map((_, i) => `/${parts.slice(0, parts.length - i).join('/')}`).concat('/');
}

/** Root-relative path of a file of cgroup `cg` ("/" or "/a/b") in the hierarchy mounted at `base`. */
export function fileIn(base: string, cg: string, file: string): string {
  return `${cg === '/' ? base : `${base}${cg}`}/${file}`;
}

const FILES = {
  cpus: {
    v1: ['cpuset.effective_cpus', 'cpuset.cpus'],
    v2: ['cpuset.cpus.effective', 'cpuset.cpus'],
    noprefix: ['effective_cpus', 'cpus'],
  },
  mems: {
    v1: ['cpuset.effective_mems', 'cpuset.mems'],
    v2: ['cpuset.mems.effective', 'cpuset.mems'],
    noprefix: ['effective_mems', 'mems'],
  },
} as const;

/** The CPUs or memory nodes a process's cgroup allows: the cgroup, the file, the ids. */
export interface CgroupAllowed {
  readonly cgroup: string;
  readonly path: string;
  readonly ids: number[];
}

/**
 * The allowed CPUs (or memory nodes) of a process's cgroup, or null when no cgroup file says (no
 * cgroupfs, no cpuset). The hierarchies are found wherever they are mounted (cgroup_mounts.ts):
 * the v1 cpuset hierarchy (or the legacy cpuset filesystem) when the process is in one, else v2.
 */
export function readCgroupAllowed(root: SysRoot, pid: number | 'self', what: 'cpus' | 'mems'): CgroupAllowed | null {
  const h = readCgroupHierarchies(root);
  const p = readParsed(root, `proc/${pid}/cgroup`, parseProcCgroup) ?? cpusetOnly(root, pid, h);
  if (p === null) return null;
  const [mount, cg] = p.cpusetV1 !== null ? [h.cpuset, p.cpusetV1] : [h.v2, p.v2];
  if (cg === null || mount === null) return null;
  const files = FILES[what][mount.noprefix ? 'noprefix' : p.cpusetV1 !== null ? 'v1' : 'v2'];
  for (const file of files) {
    for (const dir of upward(cg)) {
      const base = cgroupDir(mount, dir);
      if (base === null) continue; // above the part of the hierarchy mounted here
      const path = `${base}/${file}`;
      const r = readFile(root, path);
      // v2 cpuset.cpus is empty when the cgroup inherits: look further up.
      if (!r.ok || r.text.replace(/[\s\0]/g, '') === '') continue;
      const ids = readParsed(root, path, parseCpuList);
      return ids === null ? null : { cgroup: dir, path, ids };
    }
  }
  return null;
}

/** /proc/PID/cpuset ("/batch") as the cgroup of the cpuset hierarchy mounted (else of v2); null when absent. */
function cpusetOnly(root: SysRoot, pid: number | 'self', h: CgroupHierarchies): CgroupPaths | null {
  const r = readFile(root, `proc/${pid}/cpuset`);
  const path = r.ok ? r.text.replace(/[\s\0]+$/, '') : '';
  if (!path.startsWith('/')) return null;
  return h.cpuset !== null
    ? { v2: null, cpusetV1: path, memoryV1: null }
    : { v2: path, cpusetV1: null, memoryV1: null };
}

/** The allowed CPUs of a process's cgroup, or null when no cgroup file says (no cgroupfs, no cpuset). */
export function readCgroupAllowedCpus(root: SysRoot, pid: number | 'self'): CpusetRestriction | null {
  const a = readCgroupAllowed(root, pid, 'cpus');
  return a === null ? null : { cgroup: a.cgroup, path: a.path, cpus: a.ids };
}

/**
 * The cgroup whose cpuset restricts the process and its CPUs; null when none does (or unknown).
 * readCgroupAllowed's answer (the hierarchies wherever mounted, effective CPUs first).
 */
export function readCgroupCpuset(root: SysRoot, pid: number): { cgroup: string; cpus: number[] } | null {
  const a = readCgroupAllowed(root, pid, 'cpus');
  return a === null ? null : { cgroup: a.cgroup, cpus: a.ids };
}

/** A v1 cpuset cgroup's effective CPUs or memory nodes (the cpuset hierarchy, wherever mounted); null when absent. */
export function readCgroupEffectiveV1(root: SysRoot, cgroup: string, what: 'cpus' | 'mems'): number[] | null {
  const mount = readCgroupHierarchies(root).cpuset;
  const dir = mount === null ? null : cgroupDir(mount, cgroup);
  if (mount === null || dir === null) return null;
  return readParsed(root, `${dir}/${FILES[what][mount.noprefix ? 'noprefix' : 'v1'][0]}`, parseCpuList);
}
