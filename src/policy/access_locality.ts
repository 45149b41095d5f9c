// Access locality of a process from its threads' NUMA-balancing faults: a fault on memory of the
// node the thread runs on is local. Pure; "not available" always says why.
import type { AccessLocality, MemSample, TaskNumaFaults } from '../model/access_locality.js';

/**
 * `tasks`: each thread's statistics (null: its sched file is absent). `balancing`: the value of
 * kernel.numa_balancing (null when unknown); the kernel keeps no fault statistics when it is 0.
 */
export function accessLocality(tasks: readonly (TaskNumaFaults | null)[], balancing: number | null): AccessLocality {
  if (balancing === 0)
    return { kind: 'unavailable', why: 'NUMA balancing is off (kernel.numa_balancing=0): the kernel counts no faults' };
  const read = tasks.filter((t): t is TaskNumaFaults => t !== null);
  if (read.length === 0)
    return {
      kind: 'unavailable',
      why: 'no /proc/PID/sched (a kernel without CONFIG_SCHED_DEBUG, or the process is gone)',
    };
  if (read.every((t) => Object.keys(t.faults).length === 0))
    return { kind: 'unavailable', why: 'no NUMA fault statistics yet (not scanned by NUMA balancing)' };
  const nodes: Record<string, number> = {};
  let total = 0;
  let local = 0;
  for (const t of read) {
    for (const [n, f] of Object.entries(t.faults)) {
      nodes[n] = (nodes[n] ?? 0) + f;
      total += f;
      if (t.currentNode !== null && Number(n) === t.currentNode) local += f;
    }
  }
  if (total === 0) return { kind: 'unavailable', why: 'no recent NUMA hinting faults (idle, or fully scanned)' };
  return { kind: 'ok', local: local / total, faults: total, nodes, source: 'numa-faults' };
}

/**
 * Access locality per process from PMU memory samples: the share of its DRAM accesses served by
 * local DRAM (the data source the PMU recorded, so exact whatever node the thread moved to); by
 * node of the memory where the node is known (physical address -> memory block -> node), local
 * ones else on the node of the CPU that took the sample. Cache hits are not memory accesses.
 */
export function accessFromSamples(
  samples: readonly MemSample[],
  where: { cpuNode: (cpu: number) => number | null; physNode: (phys: bigint) => number | null },
): Map<number, AccessLocality> {
  const by = new Map<number, { local: number; remote: number; nodes: Record<string, number> }>();
  for (const s of samples) {
    if (s.side === null) continue;
    let e = by.get(s.pid);
    if (e === undefined) by.set(s.pid, (e = { local: 0, remote: 0, nodes: {} }));
    e[s.side]++;
    const node =
      (s.physAddr !== 0n ? where.physNode(s.physAddr) : null) ?? (s.side === 'local' ? where.cpuNode(s.cpu) : null);
    if (node !== null) e.nodes[String(node)] = (e.nodes[String(node)] ?? 0) + 1;
  }
  const out = new Map<number, AccessLocality>();
  for (const [pid, e] of by) {
    const total = e.local + e.remote;
    out.set(pid, { kind: 'ok', local: e.local / total, faults: total, nodes: e.nodes, source: 'pmu' });
  }
  return out;
}

/** "0.25", or "-" when not available. */
export function formatAccess(a: AccessLocality | undefined): string {
  return a === undefined || a.kind !== 'ok' ? '-' : a.local.toFixed(2);
}
