// Processes for `numakit stat` and the agent: which PIDs a numastat-style specifier names,
// the memory of a process per node (from numa_maps), and samples of processes over a window
// (memory per node + where their threads spent CPU time). Everything returned is plain data
// (src/model/stat.ts); locality is computed from it by src/policy/locality.ts.
//
// API:
//   findPids(root, specs, {self?})              -> { pids, unmatched }   numastat's -p matching
//   readProcessMemory(root, pid, {units?, policies?}) -> ProcessMemoryInfo | null (null: the process is gone)
//   memoryFromNumaMaps(text, {units?, policies?}) -> ProcessMemory (pure)
//   readThreadTicks(root, pid)                  -> Map<tid, {ticks, processor}> | null
//   sampleProcesses(root, {windowMs, pids?, sleep?}) -> Promise<ProcessSample[]>   one window
//   createSampler(root, {pids?, screen?, prescreen?, select?}).sample(nowMs) -> ProcessSample[]
//                                               CPU time since the last call; each step reads more
//                                               and sees only what the one before kept: screen
//                                               (stat: kernel threads, size, idle), prescreen (status,
//                                               cmdline), select (and CPU time from its threads),
//                                               then numa_maps (costly)
// A process that exits while being read is skipped, never an error; numa_maps that cannot be
// read for lack of permission gives memory {kind: 'no-permission'} (never zeros).
import type { NodeMemory, ProcessMemory, ProcessMemoryInfo, ProcessSample, ThreadUse } from '../model/stat.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import { listNodeDirs, readNodeCpulist } from '../sysfs/node_list.js';
import { numaMapsPath, policyText, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { listPids, listTids, readCmdline } from '../sysfs/proc_list.js';
import { ProcScreen, type ProcScreenOptions } from './proc_screen.js';
import { readProcName, readProcStatus } from '../sysfs/proc_status.js';
import { CLOCK_TICKS_PER_SECOND, readTaskStat } from '../sysfs/proc_task_stat.js';
import type { ProcStatus } from '../sysfs/proc_status.js';
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
  const comm = readProcName(root, pid);
  if (comm === null) return null;
  const r = readNumaMapsText(root, pid);
  if (!r.ok) return r.reason === 'no-permission' ? { pid, comm, memory: { kind: 'no-permission' } } : null;
  // A numa_maps that cannot be parsed is a warning; the process is left out like one that exited.
  const memory = parseOrWarn(root, numaMapsPath(pid), r.text, (t) => memoryFromNumaMaps(t, opts));
  return memory === null ? null : { pid, comm, memory };
}

/** numastat matches a pattern against "NAME CMDLINE" (NULs as spaces, at most 2047 bytes). */
function matchText(root: SysRoot, pid: number): string {
  const name = readProcName(root, pid) ?? '';
  const cmd = readCmdline(root, pid);
  return (cmd === null ? name : `${name} ${cmd}`).slice(0, 2047);
}

/**
 * numastat's process specifiers: all digits = a PID (kept even if no such process: the
 * caller reports it), anything else = a substring of "name cmdline" of any process other
 * than this one. PIDs come back sorted and unique; `unmatched` lists patterns that matched nothing.
 */
export function findPids(
  root: SysRoot,
  specs: readonly string[],
  opts: { self?: number } = {},
): { pids: number[]; unmatched: string[] } {
  const self = opts.self ?? (root.isReal ? process.pid : -1);
  const pids = new Set<number>();
  const unmatched: string[] = [];
  let all: number[] | null = null;
  for (const s of specs) {
    if (/^\d+$/.test(s)) {
      pids.add(Number(s));
      continue;
    }
    all ??= listPids(root);
    const found = all.filter((p) => p !== self && matchText(root, p).includes(s));
    if (found.length === 0) unmatched.push(s);
    found.forEach((p) => pids.add(p));
  }
  return { pids: [...pids].sort((a, b) => a - b), unmatched };
}

export interface ThreadTicks {
  readonly ticks: number;
  readonly processor: number;
}

/** CPU ticks and last CPU of every thread of a process; null when the process is gone. */
export function readThreadTicks(root: SysRoot, pid: number): Map<number, ThreadTicks> | null {
  const tids = listTids(root, pid);
  if (tids === null) return null;
  const out = new Map<number, ThreadTicks>();
  for (const tid of tids) {
    const s = readTaskStat(root, pid, tid);
    if (s !== null) out.set(tid, { ticks: s.cpuTicks, processor: s.processor });
  }
  return out;
}

/** CPU id -> node id, from nodeN/cpulist. */
export function readCpuNodes(root: SysRoot): Map<number, number> {
  const map = new Map<number, number>();
  for (const n of listNodeDirs(root)) for (const c of readNodeCpulist(root, n) ?? []) map.set(c, n);
  return map;
}

/**
 * Seconds of CPU per node over a window: each thread's tick delta is put on the node of the
 * CPU it last ran on (a thread that ran on several nodes within the window is attributed to
 * its last one; short windows keep that error small). Threads born in the window count fully.
 */
export function cpuSecondsByNode(
  before: ReadonlyMap<number, ThreadTicks>,
  after: ReadonlyMap<number, ThreadTicks>,
  o: { cpuNode: ReadonlyMap<number, number> },
): Record<string, number> {
  const { cpuNode } = o;
  const out: Record<string, number> = {};
  for (const [tid, a] of after) {
    const delta = a.ticks - (before.get(tid)?.ticks ?? 0);
    const node = cpuNode.get(a.processor);
    if (delta <= 0 || node === undefined) continue;
    out[String(node)] = (out[String(node)] ?? 0) + delta / CLOCK_TICKS_PER_SECOND;
  }
  return out;
}

export interface SampleOptions {
  /** Length of the CPU sampling window (0: no wait; CPU time is then the whole lifetime). */
  readonly windowMs: number;
  /** Processes to sample; default every process with resident memory. */
  readonly pids?: readonly number[];
  /** Injected for tests; default setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface Sampler {
  /** Samples every process (with resident memory, or the given PIDs): CPU time since the
   * previous call (the whole lifetime on the first), memory per node now. */
  sample(nowMs: number): ProcessSample[];
  /** Processes the last sample() only took a baseline of (their threads not read the time before). */
  readonly baselines: number;
  /** Every pid the last sample() listed (alive then, whatever it read of them). */
  readonly listed: ReadonlySet<number>;
}

/** What a sampler's select() sees of a process before reading its numa_maps. */
export interface SampleBrief {
  readonly pid: number;
  readonly status: ProcStatus;
  readonly cmdline: string;
  /** CPU seconds of all its threads since the previous sample (the whole lifetime on the first). */
  readonly cpuSeconds: number;
  readonly windowSeconds: number;
}

/** What prescreen() sees: no CPU time yet. */
export type PrescreenBrief = Omit<SampleBrief, 'cpuSeconds' | 'windowSeconds'>;

export interface SamplerOptions {
  readonly pids?: readonly number[];
  /** Keep only processes it returns true for; the others' numa_maps is never read. */
  readonly select?: (p: SampleBrief) => boolean;
  /** Before a process's threads are read: false drops it (its threads' stat is never read). */
  readonly prescreen?: (p: PrescreenBrief) => boolean;
  /**
   * Before even its status and cmdline are read: true drops it this pass, as a prescreen that
   * says no would (the agent itself, init, a process cooling down: nothing about it to read).
   */
  readonly skip?: (pid: number) => boolean;
  /** Count only anonymous memory (see MemoryOptions.anonOnly). */
  readonly anonOnly?: boolean;
  /** Each kept process's threads' CPU over the window (ProcessSample.threadUse). */
  readonly threadUse?: boolean;
  /**
   * Screen each process on one read of /proc/PID/stat before any other (proc_screen.ts): kernel
   * threads, processes under a size bar and idle ones are read no further. On a server with
   * thousands of processes, reading every thread's stat each pass is the sampler's main cost,
   * and most processes are small or idle.
   */
  readonly screen?: ProcScreenOptions;
}

/** A sampler that remembers thread CPU ticks between calls (used by top and the agent). */
export function createSampler(root: SysRoot, opts: SamplerOptions = {}): Sampler {
  const cpuNode = readCpuNodes(root);
  let prev = new Map<number, Map<number, ThreadTicks>>();
  /** Processes whose threads were not read at the last sample (under opts.minRss, or prescreened out). */
  let unread = new Set<number>();
  let baselines = 0;
  let prevAt: number | null = null;
  const screen = opts.screen === undefined ? null : new ProcScreen(root, opts.screen);
  let listed = new Set<number>();
  return {
    get baselines() {
      return baselines;
    },
    get listed() {
      return listed;
    },
    sample(nowMs) {
      const next = new Map<number, Map<number, ThreadTicks>>();
      const out: ProcessSample[] = [];
      const windowSeconds = prevAt === null ? 0 : (nowMs - prevAt) / 1000;
      const nextUnread = new Set<number>();
      listed = new Set<number>();
      baselines = 0;
      screen?.begin();
      for (const pid of opts.pids ?? listPids(root)) {
        listed.add(pid);
        if (screen !== null) {
          const seen = screen.check(pid, windowSeconds);
          if (seen === 'gone') continue;
          if (seen !== 'read') {
            nextUnread.add(pid);
            continue;
          }
        }
        if (opts.skip?.(pid)) {
          nextUnread.add(pid);
          continue;
        }
        // A process whose threads were not read last time (under the bar, or prescreened out)
        // has no earlier ticks (unread and prev never share a pid): its lifetime CPU is not this
        // window's, so this pass only takes its baseline.
        const baselineOnly = unread.has(pid);
        const s = sampleOne(root, pid, prev.get(pid) ?? new Map(), cpuNode, baselineOnly ? 0 : windowSeconds, {
          residentOnly: opts.pids === undefined,
          select: opts.select,
          prescreen: opts.prescreen,
          anonOnly: opts.anonOnly === true,
          threadUse: opts.threadUse === true,
        });
        if (s === null) continue;
        if (s.ticks === null) nextUnread.add(pid);
        else {
          next.set(pid, s.ticks);
          if (baselineOnly) baselines++;
        }
        if (s.sample !== null) out.push(s.sample);
      }
      screen?.end(listed);
      prev = next;
      unread = nextUnread;
      prevAt = nowMs;
      return out;
    },
  };
}

/** Samples processes once over a window: thread CPU ticks before and after, then memory per node. */
export async function sampleProcesses(root: SysRoot, opts: SampleOptions): Promise<ProcessSample[]> {
  if (opts.windowMs <= 0) return createSampler(root, opts).sample(0);
  const cpuNode = readCpuNodes(root);
  const before = new Map<number, Map<number, ThreadTicks>>();
  for (const pid of opts.pids ?? listPids(root)) {
    const st = readProcStatus(root, pid);
    if (st === null || (opts.pids === undefined && st.rssBytes === 0)) continue;
    const t = readThreadTicks(root, pid);
    if (t !== null) before.set(pid, t);
  }
  await (opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))))(opts.windowMs);
  const out: ProcessSample[] = [];
  for (const [pid, t0] of before) {
    const s = sampleOne(root, pid, t0, cpuNode, opts.windowMs / 1000, { residentOnly: false });
    if (s?.sample) out.push(s.sample);
  }
  return out;
}

/** Each thread's CPU seconds between two readings and the node it last ran on. */
export function threadUseOf(
  t0: ReadonlyMap<number, ThreadTicks>,
  t1: ReadonlyMap<number, ThreadTicks>,
  cpuNode: ReadonlyMap<number, number>,
): ThreadUse[] {
  const out: ThreadUse[] = [];
  for (const [tid, a] of t1)
    out.push({
      tid,
      seconds: Math.max(0, a.ticks - (t0.get(tid)?.ticks ?? 0)) / CLOCK_TICKS_PER_SECOND,
      node: cpuNode.get(a.processor) ?? null,
    });
  return out;
}

function cpuSecondsSince(t0: ReadonlyMap<number, ThreadTicks>, t1: ReadonlyMap<number, ThreadTicks>): number {
  let ticks = 0;
  for (const [tid, a] of t1) ticks += Math.max(0, a.ticks - (t0.get(tid)?.ticks ?? 0));
  return ticks / CLOCK_TICKS_PER_SECOND;
}

function sampleOne(
  root: SysRoot,
  pid: number,
  t0: ReadonlyMap<number, ThreadTicks>,
  cpuNode: ReadonlyMap<number, number>,
  windowSeconds: number,
  how: {
    residentOnly: boolean;
    select?: ((p: SampleBrief) => boolean) | undefined;
    prescreen?: ((p: PrescreenBrief) => boolean) | undefined;
    anonOnly?: boolean;
    threadUse?: boolean;
  },
): { sample: ProcessSample | null; ticks: Map<number, ThreadTicks> | null } | null {
  const status = readProcStatus(root, pid);
  if (status === null || (how.residentOnly && status.rssBytes === 0)) return null;
  let cmdline: string | undefined;
  const cmd = () => (cmdline ??= readCmdline(root, pid) ?? '');
  if (how.prescreen && !how.prescreen({ pid, status, cmdline: cmd() })) return { sample: null, ticks: null };
  const t1 = readThreadTicks(root, pid);
  if (t1 === null) return null;
  if (how.select && !how.select({ pid, status, cmdline: cmd(), cpuSeconds: cpuSecondsSince(t0, t1), windowSeconds })) {
    return { sample: null, ticks: t1 };
  }
  const mem = readProcessMemory(root, pid, { policies: true, anonOnly: how.anonOnly === true });
  if (mem === null) return null;
  const lastNodes = [
    ...new Set([...t1.values()].map((t) => cpuNode.get(t.processor)).filter((n): n is number => n !== undefined)),
  ].sort((a, b) => a - b);
  const sample: ProcessSample = {
    ...mem,
    cmdline: cmd(),
    threads: status.threads,
    cpusAllowed: status.cpusAllowed,
    memsAllowed: status.memsAllowed,
    cpuNodes: cpuSecondsByNode(t0, t1, { cpuNode: cpuNode }),
    lastNodes,
    windowSeconds,
    ...(how.threadUse ? { threadUse: threadUseOf(t0, t1, cpuNode) } : {}),
  };
  return { sample, ticks: t1 };
}
