// Processes for `numakit stat` and the agent: which PIDs a numastat-style specifier names,
// the memory of a process per node (from numa_maps), and samples of processes over a window
// (memory per node + where their threads spent CPU time). Everything returned is plain data
// (src/model/stat.ts); locality is computed from it by src/policy/locality.ts.
//
// API:
//   findPids(root, specs)                       -> { pids, unmatched }   numastat's -p matching
//   readProcessMemory(root, pid, {units?})      -> ProcessMemoryInfo | null (null: the process is gone)
//   memoryFromMappings(mappings, units?)        -> ProcessMemory (pure)
//   readThreadTicks(root, pid)                  -> Map<tid, {ticks, processor}> | null
//   sampleProcesses(root, {windowMs, pids?, sleep?}) -> Promise<ProcessSample[]>   one window
//   createSampler(root, {pids?}).sample(nowMs) -> ProcessSample[]   CPU time since the last call
// A process that exits while being read is skipped, never an error; numa_maps that cannot be
// read for lack of permission gives memory {kind: 'no-permission'} (never zeros).
import type { NodeMemory, ProcessMemory, ProcessMemoryInfo, ProcessSample } from '../model/stat.js';
import { listNodeDirs, readNodeCpulist } from '../sysfs/node_list.js';
import { readNumaMaps, type NumaMapping } from '../sysfs/proc_numa_maps.js';
import { listPids, listTids, readCmdline } from '../sysfs/proc_list.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import { CLOCK_TICKS_PER_SECOND, readTaskStat } from '../sysfs/proc_task_stat.js';
import type { SysRoot } from '../sysfs/root.js';

/** numastat's units: every non-huge page is `pageSize`, every huge one `hugePageSize`,
 * whatever kernelpagesize_kB says. Without units each mapping's kernelpagesize_kB is used. */
export interface NumastatUnits {
  readonly pageSize: number;
  readonly hugePageSize: number;
}

const KEY = { huge: 'hugeBytes', heap: 'heapBytes', stack: 'stackBytes', private: 'privateBytes' } as const;

function policyName(m: NumaMapping): string {
  return m.policyNodes === '' ? m.policy : `${m.policy}:${m.policyNodes}`;
}

export function memoryFromMappings(mappings: readonly NumaMapping[], units?: NumastatUnits): ProcessMemory {
  const nodes: Record<string, { hugeBytes: number; heapBytes: number; stackBytes: number; privateBytes: number; totalBytes: number }> = {};
  const policies: Record<string, number> = {};
  let total = 0;
  for (const m of mappings) {
    const unit = units ? (m.category === 'huge' ? units.hugePageSize : units.pageSize) : (m.pageKb ?? 4) * 1024;
    for (const [node, pages] of m.pages) {
      const bytes = pages * unit;
      const n = (nodes[String(node)] ??= { hugeBytes: 0, heapBytes: 0, stackBytes: 0, privateBytes: 0, totalBytes: 0 });
      n[KEY[m.category]] += bytes;
      n.totalBytes += bytes;
      total += bytes;
      policies[policyName(m)] = (policies[policyName(m)] ?? 0) + bytes;
    }
  }
  return { kind: 'ok', nodes: nodes as Record<string, NodeMemory>, totalBytes: total, policies };
}

/** Name and memory of a process; null when it is gone (or exits while being read). */
export function readProcessMemory(root: SysRoot, pid: number, opts: { units?: NumastatUnits } = {}): ProcessMemoryInfo | null {
  const status = readProcStatus(root, pid);
  if (status === null) return null;
  const maps = readNumaMaps(root, pid);
  if (!maps.ok) return maps.reason === 'missing' ? null : { pid, comm: status.name, memory: { kind: 'no-permission' } };
  return { pid, comm: status.name, memory: memoryFromMappings(maps.mappings, opts.units) };
}

/** numastat matches a pattern against "NAME CMDLINE" (NULs as spaces, at most 2047 bytes). */
function matchText(root: SysRoot, pid: number): string {
  const name = readProcStatus(root, pid)?.name ?? '';
  const cmd = readCmdline(root, pid);
  return (cmd === null ? name : `${name} ${cmd}`).slice(0, 2047);
}

/**
 * numastat's process specifiers: all digits = a PID (kept even if no such process: the
 * caller reports it), anything else = a substring of "name cmdline" of any process other
 * than this one. PIDs come back sorted and unique; `unmatched` lists patterns that matched nothing.
 */
export function findPids(root: SysRoot, specs: readonly string[], self: number = root.isReal ? process.pid : -1): { pids: number[]; unmatched: string[] } {
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
export function cpuSecondsByNode(before: ReadonlyMap<number, ThreadTicks>, after: ReadonlyMap<number, ThreadTicks>, cpuNode: ReadonlyMap<number, number>): Record<string, number> {
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
}

/** A sampler that remembers thread CPU ticks between calls (used by top and the agent). */
export function createSampler(root: SysRoot, opts: { pids?: readonly number[] } = {}): Sampler {
  const cpuNode = readCpuNodes(root);
  let prev = new Map<number, Map<number, ThreadTicks>>();
  let prevAt: number | null = null;
  return {
    sample(nowMs) {
      const next = new Map<number, Map<number, ThreadTicks>>();
      const out: ProcessSample[] = [];
      const windowSeconds = prevAt === null ? 0 : (nowMs - prevAt) / 1000;
      for (const pid of opts.pids ?? listPids(root)) {
        const s = sampleOne(root, pid, prev.get(pid) ?? new Map(), cpuNode, windowSeconds, opts.pids === undefined);
        if (s === null) continue;
        next.set(pid, s.ticks);
        out.push(s.sample);
      }
      prev = next;
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
    const s = sampleOne(root, pid, t0, cpuNode, opts.windowMs / 1000, false);
    if (s !== null) out.push(s.sample);
  }
  return out;
}

function sampleOne(
  root: SysRoot, pid: number, t0: ReadonlyMap<number, ThreadTicks>, cpuNode: ReadonlyMap<number, number>, windowSeconds: number, residentOnly: boolean,
): { sample: ProcessSample; ticks: Map<number, ThreadTicks> } | null {
  const status = readProcStatus(root, pid);
  if (status === null || (residentOnly && status.rssBytes === 0)) return null;
  const t1 = readThreadTicks(root, pid);
  const mem = readProcessMemory(root, pid);
  if (t1 === null || mem === null) return null;
  const lastNodes = [...new Set([...t1.values()].map((t) => cpuNode.get(t.processor)).filter((n): n is number => n !== undefined))].sort((a, b) => a - b);
  const sample: ProcessSample = {
    ...mem,
    cmdline: readCmdline(root, pid) ?? '',
    threads: status.threads,
    cpusAllowed: status.cpusAllowed,
    memsAllowed: status.memsAllowed,
    cpuNodes: cpuSecondsByNode(t0, t1, cpuNode),
    lastNodes,
    windowSeconds,
  };
  return { sample, ticks: t1 };
}
