// The anonymous mappings of a process with their pages per node: /proc/PID/numa_maps (pages
// per node, by the mapping's start address) joined with /proc/PID/maps (its end). What the
// agent's mover walks, page range by page range, with move_pages(2). Anonymous = what the
// agent counts as the process's own memory (memoryFromNumaMaps with anonOnly): no file
// mappings, but anonymous hugetlb ones (file=/anon_hugepage) are in.
import { parseOrWarn } from '../sysfs/read_parsed.js';
import { numaMapsPath, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { readProcMaps, type Mapping } from '../sysfs/proc_maps.js';
import type { SysRoot } from '../sysfs/root.js';

export interface AnonRange {
  readonly start: number;
  readonly end: number;
  /** Bytes of one page of this mapping: the base page, or the hugetlb page size. */
  readonly pageBytes: number;
  /** Node id -> pages (of pageBytes) on it. */
  readonly pages: ReadonlyMap<number, number>;
}

/** Joins numa_maps text with the mappings from maps; mappings gone in between are left out. Pure. */
export function joinAnonRanges(numaMaps: string, maps: readonly Mapping[]): AnonRange[] {
  const byStart = new Map(maps.map((m) => [m.start, m]));
  const out: AnonRange[] = [];
  scanNumaMaps(numaMaps, (m) => {
    if (m.category !== 'huge' && m.words.some((w) => w.startsWith('file='))) return;
    if (m.pairs.length === 0) return;
    const map = byStart.get(parseInt(m.words[0]!, 16));
    if (map === undefined) return;
    const pages = new Map<number, number>();
    for (let i = 0; i < m.pairs.length; i += 2) pages.set(m.pairs[i]!, (pages.get(m.pairs[i]!) ?? 0) + m.pairs[i + 1]!);
    out.push({ start: map.start, end: map.end, pageBytes: (m.pageKb ?? 4) * 1024, pages });
  });
  return out;
}

/** Anonymous mappings with pages; null when the process is gone or its maps cannot be read (or parsed: a warning). */
export function readAnonRanges(root: SysRoot, pid: number): AnonRange[] | null {
  const r = readNumaMapsText(root, pid);
  if (!r.ok) return null;
  const maps = readProcMaps(root, pid);
  if (maps === null) return null;
  return parseOrWarn(root, numaMapsPath(pid), r.text, (t) => joinAnonRanges(t, maps));
}
