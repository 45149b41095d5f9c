// Where the cgroup hierarchies are mounted, from /proc/self/mountinfo, else /proc/mounts (as
// hwloc finds them, which reads /proc/mounts alone): cgroup2 at any path (/sys/fs/cgroup on
// systemd hosts; /sys/fs/cgroup/unified on hybrid ones, elsewhere on HPC and Slurm nodes), the v1
// cpuset and memory hierarchies, and the legacy cpuset filesystem (`mount -t cpuset`, files
// without the "cpuset." prefix, like a v1 mount with noprefix). /proc/mounts does not say a
// mount's root: each is taken as the whole hierarchy. With neither (a snapshot taken without
// them, a fixture) the systemd layout is assumed: sys/fs/cgroup for v2, sys/fs/cgroup/cpuset and
// sys/fs/cgroup/memory for v1.
// Documentation/filesystems/proc.rst (3.5 /proc/<pid>/mountinfo), cgroup-v1/cpusets.rst.
import { type Mount, parseMountinfo, parseProcMounts } from './mountinfo.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface CgroupMount {
  /** Root-relative directory where the hierarchy is mounted ("sys/fs/cgroup"). */
  readonly dir: string;
  /** The cgroup of the hierarchy mounted there ("/" unless a subtree is bind-mounted, as in a container). */
  readonly root: string;
  /** Files carry no "cpuset." prefix: the legacy cpuset filesystem, or a v1 mount with noprefix. */
  readonly noprefix: boolean;
}

export interface CgroupHierarchies {
  readonly v2: CgroupMount | null;
  readonly cpuset: CgroupMount | null;
  readonly memory: CgroupMount | null;
  /** Where they were found: mountinfo, /proc/mounts, or nowhere (the systemd layout assumed). */
  readonly from: 'mountinfo' | 'mounts' | 'default';
}

/** The cgroup mounts of a mountinfo text (sysfs/mountinfo.ts). */
export function parseCgroupMounts(text: string): CgroupHierarchies {
  return cgroupHierarchiesOf(parseMountinfo(text), 'mountinfo');
}

/** The cgroup mounts of a /proc/mounts text (each mount's root taken as "/"). */
export function parseCgroupProcMounts(text: string): CgroupHierarchies {
  return cgroupHierarchiesOf(parseProcMounts(text), 'mounts');
}

/** The first mount of each hierarchy wins, as the kernel lists them in mount order. */
function cgroupHierarchiesOf(mounts: readonly Mount[], from: 'mountinfo' | 'mounts'): CgroupHierarchies {
  const mount = (m: Mount | undefined, noprefix = false): CgroupMount | null =>
    m === undefined ? null : { dir: m.point.replace(/^\/+/, ''), root: m.root, noprefix };
  const v1 = (controller: string) => mounts.find((m) => m.fstype === 'cgroup' && m.superOptions.includes(controller));
  const cpusetV1 = v1('cpuset');
  const legacy = mounts.find((m) => m.fstype === 'cpuset');
  return {
    v2: mount(mounts.find((m) => m.fstype === 'cgroup2')),
    cpuset: cpusetV1 !== undefined ? mount(cpusetV1, cpusetV1.superOptions.includes('noprefix')) : mount(legacy, true),
    memory: mount(v1('memory')),
    from,
  };
}

/** The systemd layout, assumed where no mountinfo says otherwise. */
export const DEFAULT_HIERARCHIES: CgroupHierarchies = {
  v2: { dir: 'sys/fs/cgroup', root: '/', noprefix: false },
  cpuset: { dir: 'sys/fs/cgroup/cpuset', root: '/', noprefix: false },
  memory: { dir: 'sys/fs/cgroup/memory', root: '/', noprefix: false },
  from: 'default',
};

/** /proc/mounts' hierarchies; the systemd layout where it is absent or names no cgroup mount (a trimmed capture). */
function fromProcMounts(root: SysRoot): CgroupHierarchies {
  const h = readParsed(root, 'proc/mounts', parseCgroupProcMounts);
  return h !== null && (h.v2 ?? h.cpuset ?? h.memory) !== null ? h : DEFAULT_HIERARCHIES;
}

const seen = new WeakMap<SysRoot, CgroupHierarchies>();

/** This process's cgroup mounts (read once per root). */
export function readCgroupHierarchies(root: SysRoot): CgroupHierarchies {
  let h = seen.get(root);
  if (h === undefined) {
    h = readParsed(root, 'proc/self/mountinfo', parseCgroupMounts) ?? fromProcMounts(root);
    seen.set(root, h);
  }
  return h;
}

/**
 * Root-relative directory of cgroup `cg` ("/a/b", as /proc/PID/cgroup names it) in `mount`; null
 * when the mount shows another subtree (a bind mount of "/x" cannot reach "/y").
 */
export function cgroupDir(mount: CgroupMount, cg: string): string | null {
  const root = mount.root === '/' ? '' : mount.root.replace(/\/+$/, '');
  if (root !== '' && cg !== root && !cg.startsWith(`${root}/`)) return null;
  const rest = cg.slice(root.length).replace(/^\/+/, '');
  return rest === '' ? mount.dir : `${mount.dir}/${rest}`;
}
