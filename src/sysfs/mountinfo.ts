// /proc/self/mountinfo: what is mounted where, with which filesystem and options. One parser for
// every reader of it (cgroup_mounts.ts: where the cgroup hierarchies are; proc_mount.ts: how
// /proc itself is mounted). Documentation/filesystems/proc.rst (3.5 /proc/<pid>/mountinfo).
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
