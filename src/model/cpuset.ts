// CPU and node sets as the kernel prints them: lists ("0-3,8,10-11") and masks ("ff,00000001").
import { SysfsParseError } from './errors.js';
import { cleanText, MAX_CPUS } from './limits.js';

/**
 * Parses a kernel list such as "0-3,8,10-11" (also "" and "\n" = empty; "0-7:2" strides;
 * trailing NULs and CRLF tolerated). Sorted, unique. Every id is below `limit` (MAX_CPUS by
 * default: CPU and node ids never reach it), so a corrupt list is refused, never walked.
 */
export function parseCpuList(text: string, limit = MAX_CPUS): number[] {
  const s = cleanText(text).trim();
  if (s === '') return [];
  // The kernel prints ranges in ascending order: the ids go straight into the array. A list out
  // of order or overlapping (hand-written) goes through a Set, sorted at the end.
  const out: number[] = [];
  let unordered: Set<number> | null = null;
  for (const part of s.split(',')) {
    const m = /^(\d{1,9})(?:-(\d{1,9})(?::(\d{1,9}))?)?$/.exec(part.trim());
    if (!m) throw new SysfsParseError('not a CPU/node list', { text: s });
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (hi < lo || step < 1) throw new SysfsParseError('bad range in CPU/node list', { text: part });
    if (hi >= limit)
      throw new SysfsParseError(`id beyond the kernel's limit (${limit}) in CPU/node list`, { text: part });
    if (unordered === null && out.length > 0 && lo <= out[out.length - 1]!) unordered = new Set(out);
    if (unordered === null) for (let i = lo; i <= hi; i += step) out.push(i);
    else for (let i = lo; i <= hi; i += step) unordered.add(i);
  }
  return unordered === null ? out : [...unordered].sort((a, b) => a - b);
}

/** Distinct lists kept by sharedCpuList; past it the cache starts again (a bound, never reached in practice). */
const SHARED_MAX = 1024;
const shared = new Map<string, readonly number[]>();

/**
 * parseCpuList, the result shared by every caller with the same text and frozen: the 10,000
 * processes of a large machine have a few distinct Cpus_allowed_list values, and a copy of a
 * 1,792-id array for each would be most of a pass's heap. Errors as parseCpuList's.
 */
export function sharedCpuList(text: string): readonly number[] {
  let ids = shared.get(text);
  if (ids === undefined) {
    ids = Object.freeze(parseCpuList(text));
    if (shared.size >= SHARED_MAX) shared.clear();
    shared.set(text, ids);
  }
  return ids;
}

/** Whether the sorted ids `all` hold every one of the sorted ids `ids` (both as parseCpuList gives them). */
export function holdsAll(all: readonly number[], ids: readonly number[]): boolean {
  let i = 0;
  for (const id of ids) {
    while (i < all.length && all[i]! < id) i++;
    if (all[i] !== id) return false;
  }
  return true;
}

/** Formats ids as a compact list: [0,1,2,3,8] -> "0-3,8". */
export function formatCpuList(ids: readonly number[]): string {
  // A shared list (sharedCpuList: frozen) is formatted once: doctor formats the mask of each of
  // 1,024 IRQs of a large machine, most of them one list of 1,792 ids.
  const frozen = Object.isFrozen(ids);
  const known = frozen ? formatted.get(ids) : undefined;
  if (known !== undefined) return known;
  const text = formatIds(ids);
  if (frozen) formatted.set(ids, text);
  return text;
}

const formatted = new WeakMap<readonly number[], string>();

function formatIds(ids: readonly number[]): string {
  // Lists as the kernel gives them (parseCpuList) are ascending already: no copy, Set or sort of
  // their 1,792 ids.
  const sorted = ascending(ids) ? ids : [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** Whether the ids are strictly ascending (sorted, no repeats). */
function ascending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (!(ids[i]! > ids[i - 1]!)) return false;
  return true;
}

/**
 * Parses a kernel hex mask such as "00000000,0000000f" (32-bit words, most significant first).
 * A mask wider than MAX_CPUS bits is refused (the kernel prints nr_cpu_ids bits).
 */
export function parseCpuMask(text: string): number[] {
  const s = cleanText(text).trim().replace(/^0x/i, '');
  if (s === '') return [];
  const words = s.split(',');
  if (words.length > MAX_CPUS / 32)
    throw new SysfsParseError(`mask wider than the kernel's limit (${MAX_CPUS} bits)`, { text: s });
  const out: number[] = [];
  let bit = 0;
  for (let w = words.length - 1; w >= 0; w--) {
    const word = words[w]!;
    if (!/^[0-9a-fA-F]{1,8}$/.test(word)) throw new SysfsParseError('not a hex CPU mask', { text: s });
    const v = parseInt(word, 16);
    if (v !== 0) for (let b = 0; b < 32; b++) if ((v >>> b) & 1) out.push(bit + b);
    bit += 32;
  }
  // Ascending as pushed: the words are walked from the least significant.
  return out;
}

/** Formats ids as a kernel hex mask with 32-bit words, at least `minWords` words. */
export function formatCpuMask(ids: readonly number[], minWords = 1): string {
  const max = ids.length === 0 ? 0 : Math.max(...ids);
  const nwords = Math.max(minWords, Math.floor(max / 32) + 1);
  const words = new Array<number>(nwords).fill(0);
  for (const id of ids) words[Math.floor(id / 32)]! |= 1 << (id % 32);
  return words
    .reverse()
    .map((w) => (w >>> 0).toString(16).padStart(8, '0'))
    .join(',');
}

/**
 * The node set of some CPUs, ascending and unique (a CPU of no known node is left out): where a
 * process's threads last ran (ProcessSample.lastNodes). The one copy: the process sampler uses it.
 */
export function nodesOf(cpus: Iterable<number>, cpuNode: ReadonlyMap<number, number>): number[] {
  const out = new Set<number>();
  for (const c of cpus) {
    const n = cpuNode.get(c);
    if (n !== undefined) out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}
