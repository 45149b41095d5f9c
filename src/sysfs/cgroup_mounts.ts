// Where the cgroup hierarchies are mounted, from /proc/self/mountinfo (as hwloc finds them):
// cgroup2 at any path (/sys/fs/cgroup on systemd hosts; /sys/fs/cgroup/unified on hybrid ones,
// elsewhere on HPC and Slurm nodes), the v1 cpuset and memory hierarchies, and the legacy cpuset
// filesystem (`mount -t cpuset`, files without the "cpuset." prefix, like a v1 mount with
// noprefix). Without a mountinfo (a snapshot taken without it, a fixture) the systemd layout is
// assumed: sys/fs/cgroup for v2, sys/fs/cgroup/cpuset and sys/fs/cgroup/memory for v1.
// Documentation/filesystems/proc.rst (3.5 /proc/<pid>/mountinfo), cgroup-v1/cpusets.rst.
import { type Mount, parseMountinfo } from './mountinfo.js';
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
  /** Found in mountinfo (false: the systemd layout assumed). */
  readonly fromMountinfo: boolean;
}

/**
 * The cgroup mounts of a mountinfo text (sysfs/mountinfo.ts). The first mount of each hierarchy
 * wins, as the kernel lists them in mount order.
 */
export function parseCgroupMounts(text: string): CgroupHierarchies {
  const mounts = parseMountinfo(text);
  const mount = (m: Mount | undefined, noprefix = false): CgroupMount | null =>
    m === undefined ? null : { dir: m.point.replace(/^\/+/, ''), root: m.root, noprefix };
  const v1 = (controller: string) => mounts.find((m) => m.fstype === 'cgroup' && m.superOptions.includes(controller));
  const cpusetV1 = v1('cpuset');
  const legacy = mounts.find((m) => m.fstype === 'cpuset');
  return {
    v2: mount(mounts.find((m) => m.fstype === 'cgroup2')),
    cpuset: cpusetV1 !== undefined ? mount(cpusetV1, cpusetV1.superOptions.includes('noprefix')) : mount(legacy, true),
    memory: mount(v1('memory')),
    fromMountinfo: true,
  };
}

/** The systemd layout, assumed where no mountinfo says otherwise. */
export const DEFAULT_HIERARCHIES: CgroupHierarchies = {
  v2: { dir: 'sys/fs/cgroup', root: '/', noprefix: false },
  cpuset: { dir: 'sys/fs/cgroup/cpuset', root: '/', noprefix: false },
  memory: { dir: 'sys/fs/cgroup/memory', root: '/', noprefix: false },
  fromMountinfo: false,
};

const seen = new WeakMap<SysRoot, CgroupHierarchies>();

/** This process's cgroup mounts (read once per root). */
export function readCgroupHierarchies(root: SysRoot): CgroupHierarchies {
  let h = seen.get(root);
  if (h === undefined) {
    h = readParsed(root, 'proc/self/mountinfo', parseCgroupMounts) ?? DEFAULT_HIERARCHIES;
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
