// /proc/self/mountinfo: what is mounted where, with which filesystem and options. One parser for
// every reader of it (cgroup_mounts.ts: where the cgroup hierarchies are; proc_mount.ts: how
// /proc itself is mounted). Documentation/filesystems/proc.rst (3.5 /proc/<pid>/mountinfo).
// /proc/mounts (the fstab format, a link to /proc/self/mounts) says less: no mount root, and the
// mount's and the filesystem's options in one list. Older systems and many tools' captures carry
// it alone; hwloc reads nothing else (topology-linux.c, hwloc_find_linux_cgroup_mntpnt).
import { SysfsParseError } from '../model/errors.js';

export interface Mount {
  /** The directory of the filesystem that is mounted there ("/" unless a subtree is bind-mounted). */
  readonly root: string;
  /** Where it is mounted ("/sys/fs/cgroup"). */
  readonly point: string;
  readonly fstype: string;
  /** The filesystem's own options ("rw", "hidepid=invisible", "cpuset", "nsdelegate"). */
  readonly superOptions: readonly string[];
}

/** mountinfo's octal escapes (\040 for a space, \011, \012, \134). */
const unescapeOctal = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/**
 * /proc/mounts, "SOURCE POINT FSTYPE OPTIONS DUMP PASS" a line in mount order (fs/proc_namespace.c
 * show_vfsmnt), as Mounts: the root is "/" (not said: a bind mount of a subtree looks like the
 * whole), the options are the mount's and the filesystem's together.
 */
export function parseProcMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const f = line.trim().split(/\s+/);
    if (f.length < 4) throw new SysfsParseError('not a /proc/mounts line', { line: i + 1, text: line });
    mounts.push({ root: '/', point: unescapeOctal(f[1]!), fstype: f[2]!, superOptions: f[3]!.split(',') });
  });
  return mounts;
}

/** "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS", one a line, in mount order. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const f = line.trim().split(' ');
    const dash = f.indexOf('-', 6);
    if (f.length < 10 || dash < 0 || dash + 3 > f.length)
      throw new SysfsParseError('not a mountinfo line', { line: i + 1, text: line });
    mounts.push({
      root: unescapeOctal(f[3]!),
      point: unescapeOctal(f[4]!),
      fstype: f[dash + 1]!,
      superOptions: (f[dash + 3] ?? '').split(','),
    });
  });
  return mounts;
}
