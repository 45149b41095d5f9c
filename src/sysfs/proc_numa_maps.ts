// /proc/PID/numa_maps: one line per mapping, see proc(5) and mm/mempolicy.c show_numa_map():
//   7f2c1a000000 interleave:0-3 anon=512 dirty=512 N0=128 N1=128 N2=128 N3=128 kernelpagesize_kB=4
//   7f2c00000000 bind:1 file=/anon_hugepage\040(deleted) huge dirty=2 N1=2 kernelpagesize_kB=1048576
// N<node>=<pages> counts pages of kernelpagesize_kB each: base pages for ordinary and THP
// mappings, huge pages for hugetlb ones (whose size can differ per mapping: 2 MiB and 1 GiB
// on the same machine). The policy text may contain a space ("weighted interleave",
// "prefer (many)") and file names are escaped by the kernel (no raw spaces).
import { SysfsParseError } from '../model/errors.js';
import { MAX_NODES } from '../model/limits.js';
import { parseOrWarn } from './read_parsed.js';
import { readFile, type ReadResult } from './read.js';
import type { SysRoot } from './root.js';
import type { AbsentReason } from '../model/fact.js';
import { readProcMaps, type Mapping } from './proc_maps.js';

/** numastat's row for a mapping: the first word starting with huge/heap/stack decides. */
export type MappingCategory = 'huge' | 'heap' | 'stack' | 'private';

export interface NumaMapping {
  readonly address: string;
  /** Policy mode as the kernel names it: default, bind, interleave, prefer, local ... */
  readonly policy: string;
  /** Nodes named in the policy ("0-3"), or "" when none. */
  readonly policyNodes: string;
  readonly category: MappingCategory;
  /** Page size of the N<node>= counts, in kB; null on kernels that do not print it. */
  readonly pageKb: number | null;
  /** Node id -> pages. */
  readonly pages: ReadonlyMap<number, number>;
}

/** The first word starting with huge/heap/stack decides (numastat compares prefixes). */
function categoryOf(t: string): MappingCategory | null {
  const c = t.charCodeAt(0);
  if (c === 104 /* h */) return t.startsWith('huge') ? 'huge' : t.startsWith('heap') ? 'heap' : null;
  if (c === 115 /* s */) return t.startsWith('stack') ? 'stack' : null;
  return null;
}

function isHex(t: string): boolean {
  if (t.length === 0) return false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** Non-negative decimal integer of t[from, to), or -1 (also past 15 digits: never rounded). */
function digits(t: string, from: number, to: number): number {
  if (to <= from || to - from > 15) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Policy words -> [mode, nodes]: "interleave:0-3", "bind=static:1", "prefer (many):0,2", "weighted interleave:0-1". */
function policyOf(words: string[]): [string, string] {
  let text = words[1] ?? '';
  if ((text === 'weighted' || (text === 'prefer' && words[2]?.startsWith('(many)'))) && words[2] !== undefined)
    text = `${text} ${words[2]}`;
  const colon = text.indexOf(':');
  const mode = (colon < 0 ? text : text.slice(0, colon)).replace(/=[a-z]+$/, '');
  return [mode === '' ? 'unknown' : mode, colon < 0 ? '' : text.slice(colon + 1)];
}

/** One mapping as the scanner sees it; `pairs` is [node, pages, node, pages, ...] and is reused. */
export interface ScannedMapping {
  readonly words: string[];
  readonly category: MappingCategory;
  readonly pageKb: number | null;
  readonly pairs: number[];
}

/**
 * Scans numa_maps text once, calling `visit` for each mapping with its words, category, page
 * size and node/page pairs (no object per word or per node: -p over every process is dominated
 * by this loop). Throws SysfsParseError naming the line for a line without an address or with
 * a bad page size.
 */
export function scanNumaMaps(text: string, visit: (m: ScannedMapping) => void): void {
  const pairs: number[] = [];
  let lineNo = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    const words = line.split(' ');
    if (!isHex(words[0]!)) throw new SysfsParseError('not a numa_maps line (no address)', { line: lineNo, text: line });
    pairs.length = 0;
    let pageKb: number | null = null;
    let category: MappingCategory | null = null;
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!;
      const c = w.charCodeAt(0);
      if (c === 78 /* N */) {
        const eq = w.indexOf('=');
        const node = digits(w, 1, eq);
        const pages = digits(w, eq + 1, w.length);
        if (eq > 1 && node >= 0 && pages >= 0) {
          if (node >= MAX_NODES)
            throw new SysfsParseError(`node id beyond the kernel's limit (${MAX_NODES}) in numa_maps`, {
              line: lineNo,
              text: line,
            });
          pairs.push(node, pages);
          continue;
        }
        if (eq > 1 && /^N\d+=\d+$/.test(w))
          throw new SysfsParseError('number beyond 2^53 in numa_maps', { line: lineNo, text: line });
      } else if (c === 107 /* k */ && w.startsWith('kernelpagesize_kB=')) {
        pageKb = digits(w, 18, w.length);
        // 4 kB .. 16 GB pages (powerpc's largest hugetlb size)
        if (!(pageKb > 0) || pageKb > 16 * 2 ** 20)
          throw new SysfsParseError('bad kernelpagesize_kB in numa_maps', { line: lineNo, text: line });
        continue;
      }
      if (category === null) category = categoryOf(w);
    }
    visit({ words, category: category ?? 'private', pageKb, pairs });
  }
}

export function parseNumaMaps(text: string): NumaMapping[] {
  const out: NumaMapping[] = [];
  scanNumaMaps(text, (m) => {
    const pages = new Map<number, number>();
    for (let i = 0; i < m.pairs.length; i += 2) pages.set(m.pairs[i]!, (pages.get(m.pairs[i]!) ?? 0) + m.pairs[i + 1]!);
    const [policy, policyNodes] = policyOf(m.words);
    out.push({ address: m.words[0]!, policy, policyNodes, category: m.category, pageKb: m.pageKb, pages });
  });
  return out;
}

/** One line (see parseNumaMaps). */
export function parseNumaMapsLine(line: string): NumaMapping {
  const [m] = parseNumaMaps(line);
  if (m === undefined) throw new SysfsParseError('empty numa_maps line', { text: line });
  return m;
}

/** The policy as the kernel prints it, flags included: "bind=static:1", "prefer (many):0,2", "default". */
export function policyAsPrinted(m: ScannedMapping): string {
  const w = m.words;
  return (w[1] === 'weighted' || (w[1] === 'prefer' && w[2]?.startsWith('(many)'))) && w[2] !== undefined
    ? `${w[1]} ${w[2]}`
    : (w[1] ?? '');
}

/** Policy of a scanned mapping as "mode" or "mode:nodes". */
export function policyText(m: ScannedMapping): string {
  const [mode, nodes] = policyOf(m.words);
  return nodes === '' ? mode : `${mode}:${nodes}`;
}

export type NumaMapsResult = { ok: true; mappings: NumaMapping[] } | { ok: false; reason: AbsentReason };

/**
 * Mappings of a process. Kernel threads have an empty file ([]). "missing" means the process
 * is gone; "no-permission" that another user's process was read without CAP_SYS_PTRACE
 * (the open can succeed and the read fail with EACCES: both land here).
 */
export function readNumaMaps(root: SysRoot, pid: number | 'self'): NumaMapsResult {
  const path = `proc/${pid}/numa_maps`;
  const r = readFile(root, path);
  if (!r.ok) return r;
  const mappings = parseOrWarn(root, path, r.text, parseNumaMaps);
  return mappings === null ? { ok: false, reason: 'unparseable' } : { ok: true, mappings };
}

/** The text, for scanNumaMaps (same absent reasons as readNumaMaps). Errors of a later scan
 * should be attributed with parseOrWarn(root, numaMapsPath(pid), ...). */
export function readNumaMapsText(root: SysRoot, pid: number): ReadResult {
  return readFile(root, numaMapsPath(pid));
}

export function numaMapsPath(pid: number | 'self'): string {
  return `proc/${pid}/numa_maps`;
}

/** A process's own memory on one node, as it counts in that node's meminfo. */
export interface NodeFootprint {
  /** Anonymous pages (AnonPages, MemUsed; new ones sit on the inactive anon list). */
  readonly anonBytes: number;
  /** File pages mapped by this process alone (Mapped; mapmax > 1: someone else maps them too). */
  readonly mappedBytes: number;
}

/**
 * How many of a process's own mappings cover the same page of the file a mapping maps, at most
 * (`maps`: its /proc/PID/maps): Node maps part of its own text twice, so its pages there have a
 * map count of 2 with no other process involved. Keyed by the mapping's start address.
 */
export function ownMultiplicity(maps: readonly Mapping[]): Map<number, number> {
  const out = new Map<number, number>();
  const byFile = new Map<string, Mapping[]>();
  for (const m of maps) if (m.path.startsWith('/')) (byFile.get(m.path) ?? byFile.set(m.path, []).get(m.path)!).push(m);
  for (const list of byFile.values())
    for (const m of list) {
      const from = m.offset;
      const to = m.offset + (m.end - m.start);
      // The most mappings over any point of [from, to): checked at each mapping's first byte inside it.
      let most = 1;
      for (const p of [from, ...list.map((x) => x.offset).filter((o) => o > from && o < to)]) {
        const n = list.filter((x) => x.offset <= p && p < x.offset + (x.end - x.start)).length;
        most = Math.max(most, n);
      }
      out.set(m.start, most);
    }
  return out;
}

/**
 * Node -> what one process's numa_maps holds there. A mapping's N<node>= pages are split into
 * anonymous and file pages in the proportion of its anon= count (numa_maps gives anon= for the
 * whole mapping, not per node); its file pages count as its own (Mapped would drop by them
 * without it) when no page is mapped more often than its own mappings of that file part
 * (mapmax <= `multiplicity` of its start, 1 by default); hugetlb mappings are left out (they are
 * in no meminfo row but HugePages_*). Pure.
 */
export function parseFootprint(
  text: string,
  multiplicity: ReadonlyMap<number, number> = new Map(),
): Map<number, NodeFootprint> {
  const out = new Map<number, { anonBytes: number; mappedBytes: number }>();
  scanNumaMaps(text, (m) => {
    if (m.category === 'huge') return;
    let anon = 0;
    let mapmax = 1;
    for (const w of m.words) {
      if (w.startsWith('anon=')) anon = Number(w.slice(5));
      else if (w.startsWith('mapmax=')) mapmax = Number(w.slice(7));
    }
    const shared = mapmax > (multiplicity.get(parseInt(m.words[0]!, 16)) ?? 1);
    let total = 0;
    for (let i = 1; i < m.pairs.length; i += 2) total += m.pairs[i]!;
    if (total === 0) return;
    const anonShare = Math.min(1, anon / total);
    const bytes = (m.pageKb ?? 4) * 1024;
    for (let i = 0; i < m.pairs.length; i += 2) {
      const node = m.pairs[i]!;
      const pages = m.pairs[i + 1]!;
      const f = out.get(node) ?? out.set(node, { anonBytes: 0, mappedBytes: 0 }).get(node)!;
      f.anonBytes += Math.round(pages * anonShare) * bytes;
      if (!shared) f.mappedBytes += (pages - Math.round(pages * anonShare)) * bytes;
    }
  });
  return out;
}

/** numakit's own footprint per node (proc/self/numa_maps and maps); null when numa_maps cannot be read. */
export function readSelfFootprint(root: SysRoot): Map<number, NodeFootprint> | null {
  const path = numaMapsPath('self');
  const r = readFile(root, path);
  if (!r.ok) return null;
  const multiplicity = ownMultiplicity(readProcMaps(root, 'self') ?? []);
  return parseOrWarn(root, path, r.text, (t) => parseFootprint(t, multiplicity));
}
