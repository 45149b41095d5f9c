// The top-K processes by memory on nodes they do not run on, with their locality
// (src/policy/locality.ts: memory on the nodes where their threads spent CPU time since the
// previous scrape, weighted by that time). Labels are the process name and pid only: command
// lines are unbounded and may hold secrets.
//
// numa_maps is the costly read (the kernel walks every mapping's page tables: ~0.5 ms for a
// Node.js process), so:
//   - every process costs one /proc/PID/stat (name, threads, resident pages, CPU ticks), plus
//     its status only while hugetlbfs pages are in use somewhere (HugetlbPages is not in the
//     RSS); its threads' stat only when it has several and used CPU since the last scrape;
//   - processes are visited largest first and the visit stops once K processes are certain
//     to rank above the rest (remote memory <= memory <= RSS + hugetlb);
//   - on a machine with one memory node nothing is remote and all memory is on that node:
//     numa_maps is not read at all (the K largest by RSS + hugetlb are the answer);
//   - a process's numa_maps is read again only when its RSS moved by more than 10% (and 16 MiB)
//     or after MAPS_TTL_MS (pages migrate without RSS moving: AutoNUMA, the agent); CPU per node comes
//     from its threads' stat at every scrape.
import { cpuSecondsByNode, memoryFromNumaMaps, readThreadTicks, type ThreadTicks } from '../../discover/processes.js';
import type { ProcessMemory } from '../../model/stat.js';
import { locality, remoteBytes } from '../../policy/locality.js';
import { parseAt } from '../../sysfs/parse_util.js';
import { listPids } from '../../sysfs/proc_list.js';
import { numaMapsPath, readNumaMapsText } from '../../sysfs/proc_numa_maps.js';
import { readProcStatus } from '../../sysfs/proc_status.js';
import { readProcStat } from '../../sysfs/proc_task_stat.js';
import { family, s, type Family } from '../exposition.js';
import { gapReason, pastDeadline, type CollectContext } from './context.js';

export const MAPS_TTL_MS = 30_000;
/** RSS may move this much (or 10%) before numa_maps is read again: a GC cycle is not a move. */
export const RSS_SLACK_BYTES = 16 * 2 ** 20;

export interface TopProcess {
  readonly pid: number;
  readonly name: string;
  readonly threads: number;
  readonly totalBytes: number;
  readonly remoteBytes: number;
  readonly locality: number | null;
  /** Node -> bytes (numa_maps). */
  readonly nodes: Readonly<Record<string, number>>;
  /** Nodes its threads ran on over the window (or last ran on). */
  readonly runNodes: readonly number[];
}

export interface TopProcesses {
  readonly top: readonly TopProcess[];
  /** Processes whose /proc/PID/stat this scrape read. */
  readonly scanned: number;
  /** Processes whose numa_maps this scrape read (not from the cache). */
  readonly mapped: number;
}

/** What the scrape knows of the machine when it gets to processes. */
export interface MachineBrief {
  /** CPU -> node. */
  readonly cpuNode: ReadonlyMap<number, number>;
  /** Nodes with memory (one: nothing can be remote). */
  readonly memoryNodes: readonly number[];
  /** Some hugetlbfs pages are in use (a process's HugetlbPages must then be read). */
  readonly hugetlbInUse: boolean;
  readonly pageSize: number;
}

interface Candidate {
  readonly pid: number;
  readonly name: string;
  readonly threads: number;
  readonly start: number;
  readonly rssPages: number;
  readonly bound: number;
  /** The process's own CPU ticks and last CPU: its one thread's, when it has one. */
  readonly ticks: number;
  readonly processor: number;
}

/** A process's threads' ticks, with the process's total (start time: the same process). */
interface CachedTicks {
  readonly start: number;
  readonly total: number;
  readonly threads: Map<number, ThreadTicks>;
}

interface CachedMaps {
  readonly start: number;
  readonly rssPages: number;
  readonly at: number;
  readonly memory: ProcessMemory;
}

const better = (a: TopProcess, b: TopProcess) =>
  b.remoteBytes - a.remoteBytes || b.totalBytes - a.totalBytes || a.pid - b.pid;

/** True when no process from `c` on (bounds only fall) can rank above the K-th. */
export function certain(top: readonly TopProcess[], k: number, c: { bound: number }, oneMemoryNode: boolean): boolean {
  const kth = top[k - 1];
  if (kth === undefined) return false;
  const remoteBound = oneMemoryNode ? 0 : c.bound;
  return kth.remoteBytes > remoteBound || (kth.remoteBytes >= remoteBound && kth.totalBytes >= c.bound);
}

export class TopProcessesCollector {
  private ticks = new Map<number, CachedTicks>();
  private maps = new Map<number, CachedMaps>();

  constructor(
    private readonly k: number,
    private readonly mapsTtlMs = MAPS_TTL_MS,
  ) {}

  read(c: CollectContext, m: MachineBrief): TopProcesses {
    const { cands, scanned } = this.candidates(c, m);
    const top: TopProcess[] = [];
    const ticks = new Map<number, CachedTicks>();
    const maps = new Map<number, CachedMaps>();
    let mapped = 0;
    for (const p of cands) {
      if (this.k === 0 || certain(top, this.k, p, m.memoryNodes.length <= 1)) break;
      if (pastDeadline(c)) {
        c.gaps.add('processes', 'deadline');
        break;
      }
      const one = this.readOne(c, p, m, { ticks, maps });
      if (one === null) continue;
      if (one.fresh) mapped++;
      top.push(one.p);
      top.sort(better);
      if (top.length > this.k) top.pop();
    }
    this.ticks = ticks;
    this.maps = maps;
    return { top, scanned, mapped };
  }

  private candidates(c: CollectContext, m: MachineBrief): { cands: Candidate[]; scanned: number } {
    const cands: Candidate[] = [];
    let scanned = 0;
    for (const pid of listPids(c.root)) {
      if (pastDeadline(c)) {
        c.gaps.add('processes', 'deadline');
        break;
      }
      try {
        const st = readProcStat(c.root, pid);
        const hugetlb = st !== null && m.hugetlbInUse ? (readProcStatus(c.root, pid)?.hugetlbBytes ?? 0) : 0;
        // Listed a moment ago, gone now: it exited during the scrape.
        if (st === null) c.gaps.add('processes', 'vanished');
        else {
          scanned++;
          const bound = st.rssPages * m.pageSize + hugetlb;
          if (bound > 0)
            cands.push({
              pid,
              name: st.comm,
              threads: st.threads,
              start: st.startTicks,
              rssPages: st.rssPages,
              bound,
              ticks: st.cpuTicks,
              processor: st.processor,
            });
        }
      } catch (e) {
        c.gaps.add('processes', gapReason(e));
      }
    }
    return { cands: cands.sort((a, b) => b.bound - a.bound || a.pid - b.pid), scanned };
  }

  /** The same process (start time), read recently, RSS about the same. */
  private reusable(old: CachedMaps, p: Candidate, now: number, pageSize: number): boolean {
    const moved = Math.abs(p.rssPages - old.rssPages) * pageSize;
    return (
      old.start === p.start &&
      now - old.at < this.mapsTtlMs &&
      moved <= Math.max(old.rssPages * pageSize * 0.1, RSS_SLACK_BYTES)
    );
  }

  private memory(c: CollectContext, p: Candidate, m: MachineBrief): { memory: ProcessMemory; fresh: boolean } | null {
    // One memory node: all of it is there; its size is what stat (and status) said.
    if (m.memoryNodes.length === 1) {
      const n = String(m.memoryNodes[0]);
      return {
        memory: {
          kind: 'ok',
          nodes: { [n]: { hugeBytes: 0, heapBytes: 0, stackBytes: 0, privateBytes: p.bound, totalBytes: p.bound } },
          totalBytes: p.bound,
          policies: {},
        },
        fresh: false,
      };
    }
    const old = this.maps.get(p.pid);
    if (old !== undefined && this.reusable(old, p, c.now(), m.pageSize)) return { memory: old.memory, fresh: false };
    const r = readNumaMapsText(c.root, p.pid);
    if (!r.ok) return r.reason === 'no-permission' ? { memory: { kind: 'no-permission' }, fresh: true } : null;
    return { memory: parseAt(numaMapsPath(p.pid), r.text, (t) => memoryFromNumaMaps(t)), fresh: true };
  }

  /**
   * Its threads' ticks and last CPUs. A single-threaded process's stat (read already) is its
   * thread's; a process that used no CPU since the last scrape has the same threads' figures
   * as then (none ran, so none moved): only a busy multi-threaded one has task/ read.
   */
  private threadTicks(c: CollectContext, p: Candidate): Map<number, ThreadTicks> | null {
    if (p.threads === 1) return new Map([[p.pid, { ticks: p.ticks, processor: p.processor }]]);
    const old = this.ticks.get(p.pid);
    if (old !== undefined && old.start === p.start && old.total === p.ticks) return old.threads;
    return readThreadTicks(c.root, p.pid);
  }

  private readOne(
    c: CollectContext,
    p: Candidate,
    m: MachineBrief,
    next: { ticks: Map<number, CachedTicks>; maps: Map<number, CachedMaps> },
  ): { p: TopProcess; fresh: boolean } | null {
    let threadTicks: Map<number, ThreadTicks> | null = new Map();
    let mem: ReturnType<TopProcessesCollector['memory']>;
    try {
      // One memory node: where threads ran does not change locality, so their stat is not read.
      if (m.memoryNodes.length > 1) threadTicks = this.threadTicks(c, p);
      mem = threadTicks === null ? null : this.memory(c, p, m);
    } catch (e) {
      c.gaps.add('processes', gapReason(e));
      return null;
    }
    if (threadTicks === null || mem === null) {
      c.gaps.add('processes', 'vanished');
      return null;
    }
    if (mem.memory.kind !== 'ok') {
      c.gaps.add('processes', 'no-permission');
      return null;
    }
    next.ticks.set(p.pid, { start: p.start, total: p.ticks, threads: threadTicks });
    next.maps.set(p.pid, {
      start: p.start,
      rssPages: p.rssPages,
      at: mem.fresh ? c.now() : (this.maps.get(p.pid)?.at ?? c.now()),
      memory: mem.memory,
    });
    const lastNodes =
      m.memoryNodes.length <= 1
        ? [...m.memoryNodes]
        : [
            ...new Set(
              [...threadTicks.values()]
                .map((t) => m.cpuNode.get(t.processor))
                .filter((n): n is number => n !== undefined),
            ),
          ].sort((a, b) => a - b);
    const view = {
      memory: mem.memory,
      cpuNodes: cpuSecondsByNode(this.ticks.get(p.pid)?.threads ?? new Map(), threadTicks, { cpuNode: m.cpuNode }),
      lastNodes,
    };
    const ran = Object.entries(view.cpuNodes)
      .filter(([, v]) => v > 0)
      .map(([n]) => Number(n))
      .sort((a, b) => a - b);
    return {
      fresh: mem.fresh,
      p: {
        pid: p.pid,
        name: p.name,
        threads: m.memoryNodes.length > 1 ? threadTicks.size : p.threads,
        totalBytes: mem.memory.totalBytes,
        remoteBytes: remoteBytes(view),
        locality: locality(view),
        runNodes: ran.length > 0 ? ran : lastNodes,
        nodes: Object.fromEntries(Object.entries(mem.memory.nodes).map(([n, x]) => [n, x.totalBytes])),
      },
    };
  }
}

export function processFamilies(t: TopProcesses): Family[] {
  const l = (p: TopProcess) => ({ pid: String(p.pid), name: p.name });
  return [
    family(
      'numakit_process_remote_bytes',
      'gauge',
      'Memory of a top-K process on nodes its threads did not run on since the previous scrape (numa_maps)',
      t.top.map((p) => s(p.remoteBytes, l(p))),
    ),
    family(
      'numakit_process_memory_bytes',
      'gauge',
      'Memory of a top-K process (numa_maps, all nodes)',
      t.top.map((p) => s(p.totalBytes, l(p))),
    ),
    family(
      'numakit_process_node_memory_bytes',
      'gauge',
      'Memory of a top-K process on one node (numa_maps)',
      t.top.flatMap((p) => Object.entries(p.nodes).map(([node, b]) => s(b, { ...l(p), node }))),
    ),
    family(
      'numakit_process_locality',
      'gauge',
      "Share of a top-K process's memory on the nodes where it spent CPU time, weighted by that time (1 = all local)",
      t.top.filter((p) => p.locality !== null).map((p) => s(p.locality!, l(p))),
    ),
    family('numakit_processes_scanned', 'gauge', 'Processes whose /proc/PID/stat this scrape read', [s(t.scanned)]),
    family(
      'numakit_processes_numa_maps_read',
      'gauge',
      'Processes whose numa_maps this scrape read (largest first until the top K were certain; others from the last 30 s)',
      [s(t.mapped)],
    ),
  ];
}
