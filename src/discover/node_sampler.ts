// The one node sampler: CPU ticks per CPU (/proc/stat), each node's busy and idle CPUs over a
// window between two readings, and each node's memory (nodeN/meminfo) and allocation counters
// (nodeN/numastat). The agent (agent/machine.ts) and serve (serve/collect/node_cpu.ts,
// node_memory.ts) read nodes only through it, so they cannot disagree about the same sample.
//
// The one rule for idle CPUs (nodeCpuWindow): a CPU counts when both readings list it and ticks
// passed on it between them; its idle share is 1 - busy ticks / all ticks over that window
// (clamped to 0..1). A node's idle CPUs are the sum of its counted CPUs' shares; a node none of
// whose CPUs can be counted (the first reading, CPUs just onlined, a memory-only node) is unknown
// (null): never guessed idle, never guessed busy.
import type { NodeNumastat } from '../sysfs/node_numastat.js';
import { readNodeNumastat } from '../sysfs/node_numastat.js';
import { type Meminfo, readNodeMeminfo } from '../sysfs/node_meminfo.js';
import type { CpuTimes } from '../sysfs/proc_stat.js';
import type { SysRoot } from '../sysfs/root.js';

/** Per-CPU times at one reading (CPU id -> ticks since boot). */
export type CpuReading = ReadonlyMap<number, CpuTimes>;

export interface NodeCpuWindow {
  /** The node's CPUs listed in the later reading (online). */
  readonly cpus: number;
  /** Ticks since boot of those CPUs, busy and all (counters). */
  readonly busy: number;
  readonly total: number;
  /** CPUs busy / idle on average over the window; null when no CPU of the node has one. */
  readonly busyCpus: number | null;
  readonly idleCpus: number | null;
}

/** Idle share of one CPU between two readings; null when it cannot be counted (see the rule above). */
export function cpuIdleShare(before: CpuTimes | undefined, after: CpuTimes | undefined): number | null {
  if (before === undefined || after === undefined || after.total <= before.total) return null;
  return 1 - Math.min(1, Math.max(0, (after.busy - before.busy) / (after.total - before.total)));
}

/** A node's CPUs over the window between `before` (null: none yet) and `after`: the one rule. */
export function nodeCpuWindow(cpus: readonly number[], before: CpuReading | null, after: CpuReading): NodeCpuWindow {
  let online = 0;
  let busy = 0;
  let total = 0;
  let counted = 0;
  let idle = 0;
  for (const c of cpus) {
    const a = after.get(c);
    if (a === undefined) continue;
    online++;
    busy += a.busy;
    total += a.total;
    const share = cpuIdleShare(before?.get(c), a);
    if (share === null) continue;
    counted++;
    idle += share;
  }
  const known = counted > 0;
  return {
    cpus: online,
    busy,
    total,
    busyCpus: known ? counted - idle : null,
    idleCpus: known ? idle : null,
  };
}

export interface NodeMemoryReading {
  /** Bytes, except HugePages_* (pages); null when absent or unparseable (warned). */
  readonly meminfo: Meminfo | null;
  /** Pages since boot; null when absent or unparseable (warned). */
  readonly numastat: NodeNumastat | null;
}

/** A node's memory and allocation counters now. */
export function readNodeMemoryNow(root: SysRoot, node: number): NodeMemoryReading {
  return { meminfo: readNodeMeminfo(root, node), numastat: readNodeNumastat(root, node) };
}
