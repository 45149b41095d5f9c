// The agent's own CPU over the window, by node: not load the policy fits processes around. The
// node idle CPUs come from /proc/stat between two passes, and the agent's own pass (reading
// every process, numa_maps of the candidates, moving memory) runs inside that window on whatever
// CPU the scheduler gives it; on a small or loaded machine (a guest's vCPU) it reads as a node
// half busy, and a process whose memory sits there had its memory copied away instead of its
// threads going to it. Its threads' CPU (utime + stime, by the CPU each last ran on) is read at
// each pass, a handful of small reads (a Node process has about ten threads).
import { listTids } from '../sysfs/proc_list.js';
import { readTaskStat } from '../sysfs/proc_task_stat.js';
import type { SysRoot } from '../sysfs/root.js';
import type { CpuReading } from './machine.js';
import type { NodeView } from '../policy/agent/types.js';

export class SelfCpu {
  /** Each of its threads' CPU ticks at the last read. */
  private ticks = new Map<number, number>();
  /** Node id -> its ticks between the last two reads. */
  private byNode = new Map<number, number>();

  constructor(
    private readonly root: SysRoot,
    private readonly selfPid: number,
  ) {}

  /** Reads its threads now (with /proc/stat, so both cover the same window). */
  read(nodeOfCpu: (cpu: number) => number | undefined): void {
    const next = new Map<number, number>();
    const byNode = new Map<number, number>();
    for (const tid of listTids(this.root, this.selfPid) ?? []) {
      const st = readTaskStat(this.root, this.selfPid, tid);
      if (st === null) continue;
      next.set(tid, st.cpuTicks);
      const was = this.ticks.get(tid);
      const node = nodeOfCpu(st.processor);
      if (was === undefined || node === undefined || st.cpuTicks <= was) continue;
      byNode.set(node, (byNode.get(node) ?? 0) + st.cpuTicks - was);
    }
    this.ticks = next;
    this.byNode = byNode;
  }

  /** The nodes with the agent's own CPU over the window counted idle. */
  freed(nodes: readonly NodeView[], before: CpuReading | null, after: CpuReading): NodeView[] {
    if (before === null || this.byNode.size === 0) return [...nodes];
    return nodes.map((n) => {
      const own = this.byNode.get(n.id) ?? 0;
      const window = windowTicks(n.cpus, before, after);
      if (own <= 0 || window <= 0) return n;
      return { ...n, idleCpus: Math.min(n.cpus.length, n.idleCpus + own / window) };
    });
  }
}

/** Ticks of one CPU over the window (the mean over the node's CPUs of their total's change). */
function windowTicks(cpus: readonly number[], before: CpuReading, after: CpuReading): number {
  let sum = 0;
  let n = 0;
  for (const c of cpus) {
    const a = after.get(c);
    const b = before.get(c);
    if (a === undefined || b === undefined || a.total <= b.total) continue;
    sum += a.total - b.total;
    n++;
  }
  return n > 0 ? sum / n : 0;
}
