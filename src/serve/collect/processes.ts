// The top-K processes by memory on nodes they do not run on, with their locality
// (src/policy/locality.ts: memory on the nodes where their threads spent CPU time since the
// previous scrape, weighted by that time). Labels are the process name and pid only: command
// lines are unbounded and may hold secrets.
//
// Processes are read by the one process sampler (discover/process_sampler.ts). numa_maps is the
// costly read (the kernel walks every mapping's page tables: ~0.5 ms for a Node.js process), so:
//   - every process costs one /proc/PID/stat (resident pages, CPU ticks), plus its status only
//     while hugetlbfs pages are in use somewhere (HugetlbPages is not in the RSS);
//   - processes are visited largest first and the visit stops once K processes are certain
//     to rank above the rest (remote memory <= memory <= RSS + hugetlb);
//   - on a machine with one memory node nothing is remote and all memory is on that node:
//     neither numa_maps nor the threads are read (the K largest by RSS + hugetlb are the answer);
//   - a process's numa_maps is read again only when its RSS moved by more than 10% (and 16 MiB)
//     or after MAPS_TTL_MS (pages migrate without RSS moving: AutoNUMA, the agent); CPU per node
//     comes from its threads' stat (not read again while it used no CPU).
import { createSampler, type ProcessSampler } from '../../discover/process_sampler.js';
import type { ProcessSample } from '../../model/stat.js';
import { byRemote, ranked, runNodes, type RankedProcess } from '../../policy/locality.js';
import { family, s, type Family } from '../exposition.js';
import { pastDeadline, type CollectContext } from './context.js';

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
  /** Processes listed but gone before they were read through (they exited: not a gap). */
  readonly vanished: number;
}

/** What the scrape knows of the machine when it gets to processes. */
export interface MachineBrief {
  /** Nodes with memory (one: nothing can be remote). */
  readonly memoryNodes: readonly number[];
  /** Some hugetlbfs pages are in use (a process's HugetlbPages must then be read). */
  readonly hugetlbInUse: boolean;
  readonly pageSize: number;
}

type Ranked = RankedProcess<ProcessSample>;

const totalOf = (r: Ranked) => (r.sample.memory.kind === 'ok' ? r.sample.memory.totalBytes : 0);

/** True when no process from `c` on (bounds only fall) can rank above the K-th. */
export function certain(top: readonly Ranked[], k: number, c: { bound: number }, oneMemoryNode: boolean): boolean {
  const kth = top[k - 1];
  if (kth === undefined) return false;
  const remoteBound = oneMemoryNode ? 0 : c.bound;
  return kth.remoteBytes > remoteBound || (kth.remoteBytes >= remoteBound && totalOf(kth) >= c.bound);
}

export class TopProcessesCollector {
  private sampler: ProcessSampler | null = null;
  /** What the sampler was made for: it is made again when the machine's shape changes. */
  private shape = '';

  constructor(
    private readonly k: number,
    private readonly mapsTtlMs = MAPS_TTL_MS,
  ) {}

  private samplerFor(c: CollectContext, m: MachineBrief): ProcessSampler {
    const one = m.memoryNodes.length === 1 ? m.memoryNodes[0]! : null;
    const shape = `${one};${m.hugetlbInUse};${m.pageSize}`;
    if (this.sampler !== null && shape === this.shape) return this.sampler;
    this.sampler?.close();
    this.shape = shape;
    this.sampler = createSampler(c.root, {
      hugetlb: m.hugetlbInUse,
      // Labels are name and pid: no cmdline; the name and threads of the K largest, visited every
      // scrape, are taken from their last status while their RSS holds.
      cmdline: false,
      reuseStatus: true,
      // One memory node: where threads ran does not change locality, so their stat is not read.
      threads: m.memoryNodes.length > 1,
      memory:
        one === null
          ? { numaMaps: { reuse: { ttlMs: this.mapsTtlMs, slackBytes: RSS_SLACK_BYTES } } }
          : { oneNode: one },
      pageSize: m.pageSize,
    });
    return this.sampler;
  }

  read(c: CollectContext, m: MachineBrief): TopProcesses {
    const sampler = this.samplerFor(c, m);
    const oneNode = m.memoryNodes.length <= 1;
    const top: Ranked[] = [];
    const stop = (next: { bound: number }) => {
      if (this.k === 0 || certain(top, this.k, next, oneNode)) return true;
      if (!pastDeadline(c)) return false;
      c.gaps.add('processes', 'deadline');
      return true;
    };
    for (const p of sampler.run({ nowMs: c.now(), largestFirst: { stop } })) {
      if (p.memory.kind !== 'ok') continue;
      // One memory node: all of a process's memory is where it runs.
      top.push(ranked(oneNode ? { ...p, lastNodes: [...m.memoryNodes] } : p));
      top.sort(byRemote);
      if (top.length > this.k) top.pop();
    }
    const counts = sampler.counts;
    if (counts.permission > 0) c.gaps.add('processes', 'no-permission', counts.permission);
    if (counts.noMemory > 0) c.gaps.add('processes', 'no-memory', counts.noMemory);
    return { top: top.map(topProcess), scanned: counts.scanned, mapped: counts.mapped, vanished: counts.vanished };
  }
}

function topProcess(r: Ranked): TopProcess {
  const p = r.sample;
  const mem = p.memory.kind === 'ok' ? p.memory : { totalBytes: 0, nodes: {} };
  return {
    pid: p.pid,
    name: p.comm,
    threads: p.threads,
    totalBytes: mem.totalBytes,
    remoteBytes: r.remoteBytes,
    locality: r.locality,
    runNodes: runNodes(p),
    nodes: Object.fromEntries(Object.entries(mem.nodes).map(([n, x]) => [n, x.totalBytes])),
  };
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
      'numakit_processes_vanished',
      'gauge',
      'Processes this scrape listed that exited before it read them through (not a gap: nothing of theirs is missing)',
      [s(t.vanished)],
    ),
    family(
      'numakit_processes_numa_maps_read',
      'gauge',
      'Processes whose numa_maps this scrape read (largest first until the top K were certain; others from the last 30 s)',
      [s(t.mapped)],
    ),
  ];
}
