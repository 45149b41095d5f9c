// CPU time per node from /proc/stat (per-CPU ticks, mapped to nodes by nodeN/cpulist): counters
// of busy and idle seconds, and how many CPUs were busy / idle on average over the window since
// a reading at least MIN_WINDOW_MS old (the collector keeps recent readings; the first scrape
// compares with the reading taken when the server started).
import { readProcStat, type CpuTimes } from '../../sysfs/proc_stat.js';
import { listNodeDirs, readNodeCpulist } from '../../sysfs/node_list.js';
import { CLOCK_TICKS_PER_SECOND } from '../../sysfs/proc_task_stat.js';
import { family, s, type Family } from '../exposition.js';
import { guard, type CollectContext } from './context.js';

export const MIN_WINDOW_MS = 1000;

export interface NodeCpuTicks {
  readonly node: number;
  readonly cpus: number;
  readonly busy: number;
  readonly total: number;
}

export interface NodeCpu extends NodeCpuTicks {
  /** CPUs busy / idle on average over the window; null without an earlier reading. */
  readonly busyCpus: number | null;
  readonly idleCpus: number | null;
}

interface Reading {
  readonly at: number;
  readonly nodes: readonly NodeCpuTicks[];
}

/** Sums per-CPU ticks by node; CPUs /proc/stat does not list (offline) are not counted. */
export function ticksByNode(
  times: ReadonlyMap<number, CpuTimes>,
  nodeCpus: ReadonlyMap<number, readonly number[]>,
): NodeCpuTicks[] {
  return [...nodeCpus].map(([node, cpus]) => {
    let busy = 0;
    let total = 0;
    let n = 0;
    for (const c of cpus) {
      const t = times.get(c);
      if (t === undefined) continue;
      busy += t.busy;
      total += t.total;
      n++;
    }
    return { node, cpus: n, busy, total };
  });
}

/** Busy and idle CPUs over the window between two readings of one node. */
export function windowCpus(
  before: NodeCpuTicks | undefined,
  after: NodeCpuTicks,
  seconds: number,
): { busyCpus: number | null; idleCpus: number | null } {
  if (before === undefined || seconds <= 0) return { busyCpus: null, idleCpus: null };
  const total = after.total - before.total;
  if (total <= 0) return { busyCpus: null, idleCpus: null };
  const busyShare = Math.max(0, Math.min(1, (after.busy - before.busy) / total));
  // Ticks elapsed over the window tell how many CPUs were counted (CPUs go on/offline), at most
  // the CPUs online now (a window measured a little short must not show more busy CPUs than exist).
  const cpus = Math.min(after.cpus, total / CLOCK_TICKS_PER_SECOND / seconds);
  return { busyCpus: busyShare * cpus, idleCpus: (1 - busyShare) * cpus };
}

export class NodeCpuCollector {
  private readings: Reading[] = [];

  read(c: CollectContext): NodeCpu[] {
    const times = guard(c, 'node_cpu', () => readProcStat(c.root));
    if (times === null) return [];
    const nodeCpus = new Map<number, readonly number[]>();
    for (const n of listNodeDirs(c.root)) {
      const cpus = guard(c, 'node_cpu', () => readNodeCpulist(c.root, n));
      if (cpus !== null) nodeCpus.set(n, cpus);
    }
    if (nodeCpus.size === 0) nodeCpus.set(0, [...times.keys()]);
    const now = c.now();
    const nodes = ticksByNode(times, nodeCpus);
    const base = [...this.readings].reverse().find((r) => now - r.at >= MIN_WINDOW_MS) ?? this.readings[0];
    this.readings = [...this.readings.filter((r) => now - r.at < 10 * MIN_WINDOW_MS), { at: now, nodes }];
    const seconds = base === undefined ? 0 : (now - base.at) / 1000;
    return nodes.map((n) => ({
      ...n,
      ...windowCpus(
        base?.nodes.find((b) => b.node === n.node),
        n,
        seconds,
      ),
    }));
  }
}

export function nodeCpuFamilies(nodes: readonly NodeCpu[]): Family[] {
  const l = (n: NodeCpu) => ({ node: String(n.node) });
  const gauges = (key: 'busyCpus' | 'idleCpus') => nodes.filter((n) => n[key] !== null).map((n) => s(n[key]!, l(n)));
  return [
    family(
      'numakit_node_cpu_seconds_total',
      'counter',
      "CPU time of the node's CPUs since boot (/proc/stat), busy (not idle or iowait) or idle",
      nodes.flatMap((n) => [
        s(n.busy / CLOCK_TICKS_PER_SECOND, { ...l(n), mode: 'busy' }),
        s((n.total - n.busy) / CLOCK_TICKS_PER_SECOND, { ...l(n), mode: 'idle' }),
      ]),
    ),
    family(
      'numakit_node_cpus_online',
      'gauge',
      'Online CPUs of the node (nodeN/cpulist, listed in /proc/stat)',
      nodes.map((n) => s(n.cpus, l(n))),
    ),
    family(
      'numakit_node_cpus_busy',
      'gauge',
      'CPUs of the node busy on average since the previous reading at least 1 s old',
      gauges('busyCpus'),
    ),
    family(
      'numakit_node_cpus_idle',
      'gauge',
      'CPUs of the node idle on average since the previous reading at least 1 s old',
      gauges('idleCpus'),
    ),
  ];
}
