// Cgroups with their processes, for `numakit stat --cgroup`, top's cgroup grouping and serve:
// each sampled process's cgroup (the v1 memory hierarchy's path where the memory controller is
// on v1, else the v2 path), then per cgroup its memory.numa_stat and the CPUs and memory nodes
// its cpuset allows (sysfs/cgroup_cpuset.ts: inherited, either hierarchy).
import { groupByCgroup, within, type CgroupFacts } from '../model/cgroup_numa.js';
import type { ProcessSample } from '../model/stat.js';
import { readCgroupAllowed, readCgroupEffectiveV1 } from '../sysfs/cgroup_cpuset.js';
import { readCgroupNumaStat } from '../sysfs/cgroup_numa_stat.js';
import { readCgroupEffective } from '../sysfs/cgroup_v2.js';
import { parseProcCgroup } from '../sysfs/proc_cgroup.js';
import { readParsed } from '../sysfs/read_parsed.js';
import type { SysRoot } from '../sysfs/root.js';
import { readPageSize } from './node_stat.js';

export interface ProcCgroup {
  readonly path: string;
  readonly version: 1 | 2;
}

/** The cgroup a process's memory is charged to; null when /proc/PID/cgroup is gone or names none. */
export function readMemoryCgroup(root: SysRoot, pid: number): ProcCgroup | null {
  const p = readParsed(root, `proc/${pid}/cgroup`, parseProcCgroup);
  if (p === null) return null;
  if (p.memoryV1 !== null) return { path: p.memoryV1, version: 1 };
  return p.v2 === null ? null : { path: p.v2, version: 2 };
}

/** A cgroup's own facts; `pid`, one of its processes, finds its cpuset in either hierarchy. */
export function readCgroupFacts(root: SysRoot, cg: ProcCgroup, pid: number | null, pageSize: number): CgroupFacts {
  // Its own effective set first (the cgroup named, not a descendant a process sits in), else
  // what its process's cgroup inherits.
  const allowed = (what: 'cpus' | 'mems') =>
    (cg.version === 2 ? readCgroupEffective(root, cg.path, what) : readCgroupEffectiveV1(root, cg.path, what)) ??
    (pid === null ? null : (readCgroupAllowed(root, pid, what)?.ids ?? null));
  const stat = readCgroupNumaStat(root, cg.path, { version: cg.version, pageSize });
  return {
    path: cg.path,
    version: cg.version,
    numaStat: stat === null ? null : Object.fromEntries([...stat].map(([n, m]) => [String(n), m])),
    cpus: allowed('cpus'),
    mems: allowed('mems'),
  };
}

export interface CgroupGroup {
  readonly facts: CgroupFacts;
  readonly members: ProcessSample[];
}

/**
 * The sampled processes by cgroup, with each cgroup's facts. `under`: only that cgroup, with
 * every process of it and of its descendants as one row (its numa_stat counts them all too).
 */
export function cgroupGroups(root: SysRoot, samples: readonly ProcessSample[], under: string | null): CgroupGroup[] {
  const of = new Map<number, ProcCgroup | null>();
  for (const s of samples) of.set(s.pid, readMemoryCgroup(root, s.pid));
  const version = new Map<string, 1 | 2>();
  for (const c of of.values()) if (c !== null) version.set(c.path, c.version);
  const key = (pid: number): string | null => {
    const c = of.get(pid);
    if (c === null || c === undefined) return null;
    if (under === null) return c.path;
    return within(c.path, under) ? under : null;
  };
  const pageSize = readPageSize(root);
  const out: CgroupGroup[] = [];
  for (const [path, members] of groupByCgroup(samples, key)) {
    const v = version.get(path) ?? of.get(members[0]!.pid)?.version ?? 2;
    out.push({ facts: readCgroupFacts(root, { path, version: v }, members[0]!.pid, pageSize), members });
  }
  return out;
}
