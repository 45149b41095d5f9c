// /proc/PID/numa_maps: one line per mapping, see proc(5) and mm/mempolicy.c show_numa_map():
//   7f2c1a000000 interleave:0-3 anon=512 dirty=512 N0=128 N1=128 N2=128 N3=128 kernelpagesize_kB=4
//   7f2c00000000 bind:1 file=/anon_hugepage\040(deleted) huge dirty=2 N1=2 kernelpagesize_kB=1048576
// N<node>=<pages> counts pages of kernelpagesize_kB each: base pages for ordinary and THP
// mappings, huge pages for hugetlb ones (whose size can differ per mapping: 2 MiB and 1 GiB
// on the same machine). The policy text may contain a space ("weighted interleave",
// "prefer (many)") and file names are escaped by the kernel (no raw spaces).
import { SysfsParseError } from '../model/errors.js';
import { parseAt } from './parse_util.js';
import { readFile } from './read.js';
import type { SysRoot } from './root.js';
import type { AbsentReason } from '../model/fact.js';

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

const POLICY = /^(default|prefer \(many\)|weighted interleave|prefer|bind|interleave|local)(?:=[a-z]+)?(?::(\S+))?/;

/** The first word starting with huge/heap/stack decides (numastat compares prefixes). */
function categoryOf(t: string): MappingCategory | null {
  const c = t.charCodeAt(0);
  if (c === 104 /* h */) return t.startsWith('huge') ? 'huge' : t.startsWith('heap') ? 'heap' : null;
  if (c === 115 /* s */) return t.startsWith('stack') ? 'stack' : null;
  return null;
}

/** "N12=345" -> [12, 345], else null. Hand-rolled: this runs for every mapping of every process. */
function nodePages(t: string): [number, number] | null {
  if (t.charCodeAt(0) !== 78 /* N */) return null;
  const eq = t.indexOf('=');
  if (eq < 2 || eq === t.length - 1) return null;
  const node = Number(t.slice(1, eq));
  const pages = Number(t.slice(eq + 1));
  return Number.isInteger(node) && Number.isInteger(pages) && node >= 0 && pages >= 0 ? [node, pages] : null;
}

export function parseNumaMapsLine(line: string): NumaMapping {
  const tokens = line.split(' ').filter((t) => t !== '');
  const address = tokens[0] ?? '';
  if (!/^[0-9a-f]+$/.test(address)) throw new SysfsParseError('numa_maps line does not start with an address', { text: line });
  const pol = POLICY.exec(line.slice(address.length + 1));
  const pages = new Map<number, number>();
  let pageKb: number | null = null;
  let category: MappingCategory | null = null;
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    const np = nodePages(t);
    if (np) pages.set(np[0], (pages.get(np[0]) ?? 0) + np[1]);
    else if (t.startsWith('kernelpagesize_kB=')) pageKb = Number(t.slice(18));
    else if (category === null) category = categoryOf(t);
  }
  if (pageKb !== null && !(pageKb > 0)) throw new SysfsParseError('bad kernelpagesize_kB', { text: line });
  return { address, policy: pol ? pol[1]! : 'unknown', policyNodes: pol?.[2] ?? '', category: category ?? 'private', pageKb, pages };
}

export function parseNumaMaps(text: string): NumaMapping[] {
  const out: NumaMapping[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      out.push(parseNumaMapsLine(line));
    } catch (e) {
      if (e instanceof SysfsParseError) throw new SysfsParseError('not a numa_maps line', { line: i + 1, text: line });
      throw e;
    }
  });
  return out;
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
  return { ok: true, mappings: parseAt(path, r.text, parseNumaMaps) };
}
