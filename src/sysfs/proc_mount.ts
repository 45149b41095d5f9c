// How /proc is mounted: with hidepid=invisible (hidepid=2, or ptraceable) the directories of
// other users' processes are not even listed to this user, so nothing can count them; with
// hidepid=noaccess (1) they are listed but their files refused (counted by the process sampler
// as hidden). proc(5), "Mount options"; the names are the kernel's since 5.8, numbers before.
import type { Mount } from './mountinfo.js';
import { parseMountinfo } from './mountinfo.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export type ProcHiding = 'invisible' | 'noaccess' | null;

/** The hidepid of the proc filesystem mounted last at /proc (the one this process sees). */
export function procHidingOf(mounts: readonly Mount[]): ProcHiding {
  const proc = mounts.filter((m) => m.point === '/proc' && m.fstype === 'proc').at(-1);
  const opt = proc?.superOptions.find((o) => o.startsWith('hidepid='))?.slice('hidepid='.length);
  if (opt === '2' || opt === 'invisible' || opt === '4' || opt === 'ptraceable') return 'invisible';
  if (opt === '1' || opt === 'noaccess') return 'noaccess';
  return null;
}

/** null also when there is no mountinfo (a snapshot without it). */
export function readProcHiding(root: SysRoot): ProcHiding {
  const mounts = readParsed(root, 'proc/self/mountinfo', parseMountinfo);
  return mounts === null ? null : procHidingOf(mounts);
}

/**
 * Other users' processes are not listed to this process: /proc is mounted hidepid=invisible and
 * this is not root (root passes hidepid's ptrace check; a gid= group exempt from it is not
 * looked at, so this may say so for a member of it). Only on the running system.
 */
export function othersInvisible(root: SysRoot): boolean {
  return root.isReal && process.getuid?.() !== 0 && readProcHiding(root) === 'invisible';
}
