// cgroup v2 files of one cgroup, by its path under the unified hierarchy ("/system.slice/x.service"),
// Documentation/admin-guide/cgroup-v2.rst:
//   memory.numa_stat   "anon N0=4096 N1=0 ..." per memory type, bytes per node (5.x+)
//   memory.current     bytes charged to the cgroup
//   cpu.stat           "usage_usec 123 ..." CPU time of its tasks
//   cpu.max            "QUOTA PERIOD" (microseconds) or "max PERIOD": its CPU limit
//   cgroup.procs       one pid a line
//   cpuset.cpus.effective / cpuset.mems.effective   what its tasks may use (with the cpuset controller)
// A file that is missing (a controller not enabled for that cgroup, an old kernel) is absent;
// one that cannot be parsed is absent too, with a warning (read_parsed.ts).
import { parseCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { fileIn } from './cgroup_cpuset.js';
import { cgroupDir, readCgroupHierarchies } from './cgroup_mounts.js';
import { parseInteger } from './parse_util.js';
import { listSubdirs, readText } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/**
 * Root-relative path of a cgroup's file in the v2 hierarchy, wherever it is mounted
 * (cgroup_mounts.ts); `cgroup` is "/" or "/a/b". A cgroup outside the mounted subtree, or no v2
 * mount, gives a path under sys/fs/cgroup, which is then absent.
 */
export function cgroupFile(root: SysRoot, cgroup: string, file: string): string {
  const v2 = readCgroupHierarchies(root).v2;
  const dir = v2 === null ? null : cgroupDir(v2, cgroup);
  return dir === null ? fileIn('sys/fs/cgroup', cgroup, file) : `${dir}/${file}`;
}

/** True when cgroup v2 is mounted (its root has cgroup.controllers). */
export function hasCgroupV2(root: SysRoot): boolean {
  return readText(root, cgroupFile(root, '/', 'cgroup.controllers')) !== null;
}

/** memory.numa_stat: memory type -> node -> bytes. */
export function parseNumaStat(text: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  text.split('\n').forEach((line, i) => {
    const words = line.trim().split(/\s+/);
    if (words[0] === undefined || words[0] === '') return;
    const nodes = new Map<number, number>();
    for (const w of words.slice(1)) {
      const m = /^N(\d+)=(\d+)$/.exec(w);
      if (!m) throw new SysfsParseError('not a "TYPE N0=BYTES ..." numa_stat line', { line: i + 1, text: line });
      nodes.set(Number(m[1]), Number(m[2]));
    }
    out.set(words[0], nodes);
  });
  return out;
}

/** Anonymous memory per node (bytes): the numa_stat "anon" line; null when absent. */
export function readCgroupAnonByNode(root: SysRoot, cgroup: string): Map<number, number> | null {
  return readParsed(
    root,
    cgroupFile(root, cgroup, 'memory.numa_stat'),
    (t) => parseNumaStat(t).get('anon') ?? new Map<number, number>(),
  );
}

export function readCgroupMemoryCurrent(root: SysRoot, cgroup: string): number | null {
  return readParsed(root, cgroupFile(root, cgroup, 'memory.current'), parseInteger);
}

/** cpu.stat usage_usec. */
export function parseCpuStatUsage(text: string): number {
  const m = /^usage_usec (\d+)$/m.exec(text);
  if (!m) throw new SysfsParseError('cpu.stat has no usage_usec line', { text: text.split('\n')[0] ?? '' });
  return Number(m[1]);
}

/** cpu.max: the CPU limit in CPUs (quota / period), or null for "max" (no limit). */
export function parseCpuMax(text: string): number | null {
  const m = /^(max|\d+)(?:\s+(\d+))?\s*$/.exec(text.replace(/\0+$/, '').trim());
  if (!m)
    throw new SysfsParseError('cpu.max is not "QUOTA PERIOD" or "max PERIOD"', { text: text.split('\n')[0] ?? '' });
  const period = Number(m[2] ?? 100000);
  if (m[1] === 'max') return null;
  if (period <= 0) throw new SysfsParseError('cpu.max has a period of 0', { text: text.trim() });
  return Number(m[1]) / period;
}

/** The cgroup's own CPU limit in CPUs; null when it has none ("max") or no cpu.max (no cpu controller, v1). */
export function readCgroupCpuMax(root: SysRoot, cgroup: string): number | null {
  return readParsed(root, cgroupFile(root, cgroup, 'cpu.max'), parseCpuMax);
}

/** CPU microseconds its tasks used since it was made; null when absent. */
export function readCgroupCpuUsec(root: SysRoot, cgroup: string): number | null {
  return readParsed(root, cgroupFile(root, cgroup, 'cpu.stat'), parseCpuStatUsage);
}

export function parsePidList(text: string): number[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      if (!/^\d+$/.test(l.trim())) throw new SysfsParseError('not a pid', { line: i + 1, text: l });
      return Number(l.trim());
    });
}

/** Pids in the cgroup (cgroup.procs); null when it is gone. */
export function readCgroupProcs(root: SysRoot, cgroup: string): number[] | null {
  return readParsed(root, cgroupFile(root, cgroup, 'cgroup.procs'), parsePidList, { emptyIsValue: true });
}

/** cpuset.cpus.effective or cpuset.mems.effective; null when the cpuset controller is not on for it. */
export function readCgroupEffective(root: SysRoot, cgroup: string, what: 'cpus' | 'mems'): number[] | null {
  return readParsed(root, cgroupFile(root, cgroup, `cpuset.${what}.effective`), parseCpuList);
}

/** Child cgroups of a cgroup (paths), or null when it is gone. */
export function listChildCgroups(root: SysRoot, cgroup: string): string[] | null {
  const dirs = listSubdirs(root, cgroupFile(root, cgroup, '').replace(/\/$/, ''));
  return dirs === null ? null : dirs.map((d) => (cgroup === '/' ? `/${d}` : `${cgroup}/${d}`));
}
