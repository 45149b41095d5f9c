// CPU time per node from /proc/stat (per-CPU ticks, mapped to nodes by nodeN/cpulist): counters
// of busy and idle seconds, and how many CPUs were busy / idle on average over the window since
// a reading at least MIN_WINDOW_MS old (the collector keeps recent readings; the first scrape
// compares with the reading taken when the server started). Busy and idle CPUs follow the node
// sampler's one rule (discover/node_sampler.ts), the agent's too.
import { type CpuReading, type NodeCpuWindow, nodeCpuWindow } from '../../discover/node_sampler.js';
import { readProcStat } from '../../sysfs/proc_stat.js';
import { listNodeDirs, readNodeCpulist } from '../../sysfs/node_list.js';
import { CLOCK_TICKS_PER_SECOND } from '../../sysfs/proc_task_stat.js';
import { family, s, type Family } from '../exposition.js';
import { guard, type CollectContext } from './context.js';

export const MIN_WINDOW_MS = 1000;

export interface NodeCpu extends NodeCpuWindow {
  readonly node: number;
}

interface Reading {
  readonly at: number;
  readonly times: CpuReading;
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
    const base = [...this.readings].reverse().find((r) => now - r.at >= MIN_WINDOW_MS) ?? this.readings[0];
    this.readings = [...this.readings.filter((r) => now - r.at < 10 * MIN_WINDOW_MS), { at: now, times }];
    return [...nodeCpus].map(([node, cpus]) => ({ node, ...nodeCpuWindow(cpus, base?.times ?? null, times) }));
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
