// One process at a time, for `numakit stat -p` (numastat's view): which PIDs a numastat-style
// specifier names, and the memory of a process per node (from numa_maps). Sampling processes over
// a window (memory per node and where their threads ran) is process_sampler.ts's, the only one.
//
// API:
//   findPids(root, specs, {self?})              -> { pids, unmatched }   numastat's -p matching
//   readProcessMemory(root, pid, {units?, policies?}) -> ProcessMemoryInfo | null (null: the process is gone)
//   memoryFromNumaMaps(text, {units?, policies?}) -> ProcessMemory (pure)
// A process that exits while being read is skipped, never an error; numa_maps that cannot be
// read for lack of permission gives memory {kind: 'no-permission'} (never zeros).
import type { NodeMemory, ProcessMemory, ProcessMemoryInfo } from '../model/stat.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import { numaMapsPath, policyText, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { listPids, readCmdlineHead, readCommName } from '../sysfs/proc_list.js';
import { readProcName } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

/** numastat's units: every non-huge page is `pageSize`, every huge one `hugePageSize`,
 * whatever kernelpagesize_kB says. Without units each mapping's kernelpagesize_kB is used. */
export interface NumastatUnits {
  readonly pageSize: number;
  readonly hugePageSize: number;
}

const INDEX = { huge: 0, heap: 1, stack: 2, private: 3 } as const;

/**
 * Memory per node of numa_maps text, split as numastat splits it. `policies` (bytes per memory
 * policy seen) costs a string per mapping and is skipped unless asked for.
 */
export interface MemoryOptions {
  readonly units?: NumastatUnits;
  readonly policies?: boolean;
  /**
   * Leave out file-backed mappings (program text, libraries, mapped files; anonymous huge pages,
   * which show as file=/anon_hugepage, stay in): the agent places what belongs to the process.
   * A file page is shared with every process that maps it and was read in wherever its first
   * reader ran.
   */
  readonly anonOnly?: boolean;
  /** Its name as status's Name shows it, when already read (findPids' names): status is not read again for it. */
  readonly name?: string;
}

export function memoryFromNumaMaps(text: string, opts: MemoryOptions = {}): ProcessMemory {
  const perNode: number[][] = []; // node -> [huge, heap, stack, private] bytes
  const policies: Record<string, number> = {};
  let total = 0;
  const { units } = opts;
  scanNumaMaps(text, (m) => {
    if (opts.anonOnly && m.category !== 'huge' && m.words.some((w) => w.startsWith('file='))) return;
    const unit = units ? (m.category === 'huge' ? units.hugePageSize : units.pageSize) : (m.pageKb ?? 4) * 1024;
    const cat = INDEX[m.category];
    let bytes = 0;
    for (let i = 0; i < m.pairs.length; i += 2) {
      const b = m.pairs[i + 1]! * unit;
      (perNode[m.pairs[i]!] ??= [0, 0, 0, 0])[cat]! += b;
      bytes += b;
    }
    total += bytes;
    if (opts.policies && bytes > 0) {
      const p = policyText(m);
      policies[p] = (policies[p] ?? 0) + bytes;
    }
  });
  const nodes: Record<string, NodeMemory> = {};
  perNode.forEach((v, n) => {
    if (v)
      nodes[String(n)] = {
        hugeBytes: v[0]!,
        heapBytes: v[1]!,
        stackBytes: v[2]!,
        privateBytes: v[3]!,
        totalBytes: v[0]! + v[1]! + v[2]! + v[3]!,
      };
  });
  return { kind: 'ok', nodes, totalBytes: total, policies };
}

/** Name and memory of a process; null when it is gone (or exits while being read). */
export function readProcessMemory(root: SysRoot, pid: number, opts: MemoryOptions = {}): ProcessMemoryInfo | null {
  const comm = opts.name ?? readProcName(root, pid);
  if (comm === null) return null;
  const r = readNumaMapsText(root, pid);
  if (!r.ok) return r.reason === 'no-permission' ? { pid, comm, memory: { kind: 'no-permission' } } : null;
  // A numa_maps that cannot be parsed is a warning; the process is left out like one that exited.
  const memory = parseOrWarn(root, numaMapsPath(pid), r.text, (t) => memoryFromNumaMaps(t, opts));
  return memory === null ? null : { pid, comm, memory };
}

/** numastat matches a pattern against "NAME CMDLINE" (NULs as spaces, at most 2047 characters). */
const MATCH_CHARS = 2047;

/**
 * The name and "NAME CMDLINE" of each process, read once for every pattern: the name from comm
 * (status's Name, as numastat reads it, when a capture has no comm), the command line only when
 * the name alone does not match. One read of each file: 10,000 processes on a large machine.
 */
class MatchTexts {
  private readonly names = new Map<number, string>();
  private readonly texts = new Map<number, string>();
  // 2,047 characters are at most 3 x 2,047 bytes of UTF-8.
  private readonly buf = Buffer.allocUnsafeSlow(8192);

  constructor(private readonly root: SysRoot) {}

  /** The name read for `pid` ('' when it has none), or undefined when not read. */
  nameOf(pid: number): string | undefined {
    return this.names.get(pid);
  }

  matches(pid: number, pattern: string): boolean {
    let name = this.names.get(pid);
    if (name === undefined) {
      name = readCommName(this.root, pid, this.buf) ?? readProcName(this.root, pid) ?? '';
      this.names.set(pid, name);
    }
    // "NAME CMDLINE" cut at 2,047 characters starts with the whole name (at most 64 bytes, escaped).
    if (name.length < MATCH_CHARS && name.includes(pattern)) return true;
    let text = this.texts.get(pid);
    if (text === undefined) {
      const cmd = readCmdlineHead(this.root, pid, this.buf);
      text = (cmd === null ? name : `${name} ${cmd}`).slice(0, MATCH_CHARS);
      this.texts.set(pid, text);
    }
    return text.includes(pattern);
  }
}

/**
 * numastat's process specifiers: all digits = a PID (kept even if no such process: the
 * caller reports it), anything else = a substring of "name cmdline" of any process other
 * than this one. PIDs come back sorted and unique; `unmatched` lists patterns that matched nothing;
 * `names` holds the name of each process a pattern matched (read to match it).
 */
export function findPids(
  root: SysRoot,
  specs: readonly string[],
  opts: { self?: number } = {},
): { pids: number[]; unmatched: string[]; names: ReadonlyMap<number, string> } {
  const self = opts.self ?? (root.isReal ? process.pid : -1);
  const pids = new Set<number>();
  const unmatched: string[] = [];
  let all: number[] | null = null;
  const texts = new MatchTexts(root);
  for (const s of specs) {
    if (/^\d+$/.test(s)) {
      pids.add(Number(s));
      continue;
    }
    all ??= listPids(root);
    const found = all.filter((p) => p !== self && texts.matches(p, s));
    if (found.length === 0) unmatched.push(s);
    found.forEach((p) => pids.add(p));
  }
  const names = new Map<number, string>();
  for (const pid of pids) {
    const name = texts.nameOf(pid);
    if (name !== undefined && name !== '') names.set(pid, name);
  }
  return { pids: [...pids].sort((a, b) => a - b), unmatched, names };
}
