// /proc/PID/status: name, state, threads, resident memory, and where the process may run
// (Cpus_allowed_list) and allocate (Mems_allowed_list). See proc(5).
import { sharedCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { isSafeDecimal } from '../model/limits.js';
import type { Fact } from '../model/fact.js';
import { readFact, readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface ProcStatus {
  readonly name: string;
  /** One letter: R S D Z T I ... */
  readonly state: string;
  readonly threads: number;
  /** VmRSS in bytes; 0 for kernel threads and zombies (the line is absent there). */
  readonly rssBytes: number;
  /** HugetlbPages in bytes (hugetlbfs pages mapped: not in VmRSS); 0 when the line is absent. */
  readonly hugetlbBytes?: number;
  /** Shared by every status with the same list (model/cpuset.ts sharedCpuList): never modified. */
  readonly cpusAllowed: readonly number[] | null;
  readonly memsAllowed: readonly number[] | null;
}

/** The lines read (the other 50 are never looked at). */
const WANTED = new Set(['Name', 'State', 'VmRSS', 'HugetlbPages', 'Threads', 'Cpus_allowed_list', 'Mems_allowed_list']);

/**
 * The wanted lines' values (leading blanks cut), the last of a key winning. One indexOf per line
 * and no string for the lines not wanted: a pass reads the status of thousands of processes.
 */
function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const i = text.indexOf(':', at);
    if (i > at && i < end) {
      const key = text.slice(at, i);
      if (WANTED.has(key)) {
        let v = i + 1;
        while (v < end && (text.charCodeAt(v) === 32 || text.charCodeAt(v) === 9)) v++;
        out.set(key, text.slice(v, end));
      }
    }
    at = end + 1;
  }
  return out;
}

export function parseProcStatus(text: string): ProcStatus {
  const f = fields(text);
  const name = f.get('Name');
  const state = f.get('State');
  if (name === undefined || state === undefined)
    throw new SysfsParseError('no Name or State line in status', { text: text.slice(0, 60) });
  const rss = /^(\d{1,15})\s*kB/.exec(f.get('VmRSS') ?? '');
  const threads = (f.get('Threads') ?? '1').trim();
  if (!isSafeDecimal(threads) || Number(threads) < 1)
    throw new SysfsParseError('Threads is not a count', { text: threads });
  // Every process of a machine has one of a few lists (1,792 ids each on a large machine): parsed once, shared.
  const list = (k: string) => (f.has(k) ? sharedCpuList(f.get(k)!) : null);
  return {
    name,
    state: state.trim().charAt(0),
    threads: Number(threads),
    rssBytes: rss ? Number(rss[1]) * 1024 : 0,
    hugetlbBytes: Number(/^(\d+)\s*kB/.exec(f.get('HugetlbPages') ?? '')?.[1] ?? 0) * 1024,
    cpusAllowed: list('Cpus_allowed_list'),
    memsAllowed: list('Mems_allowed_list'),
  };
}

/** Status of a process ('self': numakit's own, or in a snapshot the process that took it), or null when it is gone. */
export function readProcStatus(root: SysRoot, pid: number | 'self'): ProcStatus | null {
  return readProcStatusFact(root, pid).value;
}

/**
 * The same, absent with why: 'no-permission' is a process this user may not look at (/proc
 * mounted with hidepid=noaccess, or a security module), not one that is gone.
 */
export function readProcStatusFact(root: SysRoot, pid: number | 'self'): Fact<ProcStatus> {
  return readFact(root, `proc/${pid}/status`, parseProcStatus);
}

/** The Name line alone (what numastat shows): cheaper than the whole status for -p over every process. */
export function parseProcName(text: string): string {
  const m = /^Name:[ \t]*(.*)$/m.exec(text);
  if (!m) throw new SysfsParseError('no Name line in status', { text: text.slice(0, 60) });
  return m[1]!;
}

/** Name of a process, or null when it is gone. */
export function readProcName(root: SysRoot, pid: number): string | null {
  return readParsed(root, `proc/${pid}/status`, parseProcName);
}
