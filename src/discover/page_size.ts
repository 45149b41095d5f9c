// The base page size of the machine a root shows: resident pages (/proc/PID/stat, statm, the
// agent's and stat's counters) become bytes with it. One rule for every reader:
//   1. numakit's own numa_maps (proc/self/numa_maps: the kernel states each mapping's page size;
//      Node has no sysconf(_SC_PAGESIZE); a snapshot carries the snapshotting process's);
//   2. else a process whose stat and status both say its resident memory: stat's rss is pages,
//      status's VmRSS the same count in kB (fs/proc/array.c and task_mmu.c print get_mm_rss), so
//      their ratio is the page size (a tree made by hand or by another tool);
//   3. else 4096 (x86's): such a tree states no process's size in pages, so nothing read from it
//      is converted with this value.
// 4 KiB on x86, 4/16/64 KiB on arm64 and ppc64: assuming 4 KiB on a 64 KiB machine made every
// process look 16 times smaller (a large one missed by the size bar), and assuming 64 KiB on x86
// 16 times larger, so the page size is read, never guessed, where the tree says it.
import { listPids } from '../sysfs/proc_list.js';
import { readNumaMaps } from '../sysfs/proc_numa_maps.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import { readProcStat } from '../sysfs/proc_task_stat.js';
import type { SysRoot } from '../sysfs/root.js';

/** The base page sizes of the architectures numakit runs on. */
export const BASE_PAGE_SIZES = [4096, 16384, 65536] as const;

/** Processes looked at for rule 2: the first few with some memory resident settle it. */
const LOOK_AT = 32;
/** Pages a process must hold for its two counts to tell the page size apart from their read skew. */
const ENOUGH_PAGES = 64;

/** Rule 1: numakit's own numa_maps; null when the root has no such file. */
export function readKnownPageSize(root: SysRoot): number | null {
  const r = readNumaMaps(root, 'self');
  if (r.ok) for (const m of r.mappings) if (m.category !== 'huge' && m.pageKb !== null) return m.pageKb * 1024;
  return null;
}

/** The base page size closest to `bytes` per page (stat and status are read a moment apart). */
export function nearestBasePage(bytesPerPage: number): number {
  let best: number = BASE_PAGE_SIZES[0];
  for (const p of BASE_PAGE_SIZES)
    if (Math.abs(Math.log2(bytesPerPage / p)) < Math.abs(Math.log2(bytesPerPage / best))) best = p;
  return best;
}

/** Rule 2: a process's resident bytes (status) over its resident pages (stat); null when none says both. */
export function inferPageSize(root: SysRoot): number | null {
  let looked = 0;
  for (const pid of listPids(root)) {
    if (looked++ >= LOOK_AT) break;
    const stat = readProcStat(root, pid);
    if (stat === null || stat.rssPages < ENOUGH_PAGES) continue;
    const status = readProcStatus(root, pid);
    if (status !== null && status.rssBytes > 0) return nearestBasePage(status.rssBytes / stat.rssPages);
  }
  return null;
}

const seen = new WeakMap<SysRoot, number>();

/** The base page size by the rule above (read once per root). */
export function readPageSize(root: SysRoot): number {
  let size = seen.get(root);
  if (size === undefined) seen.set(root, (size = readKnownPageSize(root) ?? inferPageSize(root) ?? 4096));
  return size;
}
