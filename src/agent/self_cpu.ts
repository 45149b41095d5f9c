// The agent's own CPU over the window, by node: not load the policy fits processes around. The
// node idle CPUs come from /proc/stat between two passes, and the agent's own pass (reading
// every process, numa_maps of the candidates, moving memory) runs inside that window on whatever
// CPU the scheduler gives it; on a small or loaded machine (a guest's vCPU) it reads as a node
// half busy, and a process whose memory sits there had its memory copied away instead of its
// threads going to it.
// Its own /proc/PID/stat kept open (one pread a read): its CPU (utime + stime, all its threads)
// read at marks (each pass's start, after it read processes in depth, after each move), the CPU
// since the last mark counted on the node of the CPU its main thread is on at
// the mark (where that stretch of work ended): a pass the scheduler moved, or a move run on the
// target's CPUs, is counted where it ran, not all on the node the last pass started on. Its stat,
// not its threads': idle, a pass is most of what the agent costs, and a directory listing plus a
// dozen opens is a large share of a pass.
import { KeptFile } from '../sysfs/kept_file.js';
import { parseTaskStat } from '../sysfs/proc_task_stat.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import type { SysRoot } from '../sysfs/root.js';
import type { CpuReading } from './machine.js';
import type { NodeView } from '../policy/agent/types.js';

/** /proc/PID/stat is one line of about 300 bytes. */
const STAT_BYTES = 4096;

export class SelfCpu {
  private readonly file: KeptFile;
  /** Its CPU ticks at the last mark. */
  private last: number | null = null;
  /** Node id -> its ticks since the window started (counted at the marks). */
  private counted = new Map<number, number>();
  /** Node id -> its ticks over the last window (between the last two reads). */
  private byNode = new Map<number, number>();

  constructor(
    private readonly root: SysRoot,
    private readonly selfPid: number,
  ) {
    this.file = new KeptFile(root, `proc/${selfPid}/stat`, STAT_BYTES);
  }

  /** A mark: its CPU since the last one, counted on the node of the CPU it runs on now. */
  mark(nodeOfCpu: (cpu: number) => number | undefined): void {
    const path = `proc/${this.selfPid}/stat`;
    const text = this.file.read();
    const st = text === null ? null : parseOrWarn(this.root, path, text, parseTaskStat);
    const was = this.last;
    this.last = st === null ? null : st.cpuTicks;
    if (st === null || was === null || st.cpuTicks <= was) return;
    const node = nodeOfCpu(st.processor);
    if (node !== undefined) this.counted.set(node, (this.counted.get(node) ?? 0) + st.cpuTicks - was);
  }

  /** At the pass's read of /proc/stat (so both cover the same window): a mark, and the window ends. */
  read(nodeOfCpu: (cpu: number) => number | undefined): void {
    this.mark(nodeOfCpu);
    this.byNode = this.counted;
    this.counted = new Map();
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
