// The machine stage of an agent pass: the layout (read again only on hotplug), the CPUs the agent
// may place on (its own cgroup's cpuset within the nodes' CPUs, logged when it leaves some out),
// and /proc/stat now; free memory, numastat and idle CPUs (node sampler) only when asked for,
// the agent's own CPU over the window counted idle (self_cpu.ts).
import { formatCpuList } from '../model/cpuset.js';
import { readCgroupAllowedCpus } from '../sysfs/cgroup_cpuset.js';
import type { SysRoot } from '../sysfs/root.js';
import {
  type CpuReading,
  MachineFiles,
  type MachineReading,
  type NodeLayout,
  readCpuTimes,
  readLayout,
  readMachine,
} from './machine.js';
import { SelfCpu } from './self_cpu.js';

/** What a pass knows of the machine. */
export interface MachineNow {
  readonly layout: NodeLayout;
  /** The CPUs the agent places on. */
  readonly cpus: readonly number[];
  readonly nodeIds: readonly number[];
  /** Free memory, numastat and idle CPUs since the last pass (its own CPU counted idle): read at the first call. */
  readonly reading: () => MachineReading;
}

export class MachineStage {
  private readonly files: MachineFiles;
  private layout: NodeLayout | null = null;
  private cpus: number[] = [];
  /** /proc/stat at the last pass (null before the first: no idle CPU is known). */
  private cpuTimes: CpuReading | null = null;
  /** The log line of the agent's own cpuset, as last logged (null: it restricts nothing). */
  private cpusetLine: string | null = null;
  /** The agent's own CPU over the window: counted idle (self_cpu.ts). */
  private readonly self: SelfCpu;
  /** CPU -> its node, in the layout of the last read. */
  private nodeOf = new Map<number, number>();

  constructor(
    private readonly root: SysRoot,
    private readonly selfPid: number,
    private readonly log: (line: string) => void,
  ) {
    this.files = new MachineFiles(root);
    this.self = new SelfCpu(root, selfPid);
  }

  read(): MachineNow {
    const previous = this.layout;
    const layout = (this.layout = readLayout(this.files, previous));
    if (layout !== previous) this.cpus = this.placeable(layout);
    const before = this.cpuTimes;
    const after = readCpuTimes(this.files);
    this.cpuTimes = after;
    if (layout !== previous) this.nodeOf = new Map(layout.nodes.flatMap((n) => n.cpus.map((c) => [c, n.id] as const)));
    this.self.read((cpu) => this.nodeOf.get(cpu));
    let reading: MachineReading | null = null;
    return {
      layout,
      cpus: this.cpus,
      nodeIds: layout.nodes.map((n) => n.id),
      reading: () => (reading ??= this.withSelfIdle(readMachine(this.root, layout, before, after), before, after)),
    };
  }

  /** Counts the agent's own CPU since the last mark on the node it runs on now (between a pass's stages). */
  markSelf(): void {
    this.self.mark((cpu) => this.nodeOf.get(cpu));
  }

  private withSelfIdle(r: MachineReading, before: CpuReading | null, after: CpuReading): MachineReading {
    return { ...r, nodes: this.self.freed(r.nodes, before, after) };
  }

  /**
   * The CPUs the agent places on: the nodes' CPUs within its own cgroup's cpuset (in a container,
   * the container's CPUs), read with the layout (at start and on hotplug) and logged when it
   * leaves some out. A process whose cgroup says nothing is given these, not every CPU.
   */
  private placeable(layout: NodeLayout): number[] {
    const all = layout.nodes.flatMap((n) => n.cpus).sort((a, b) => a - b);
    const own = readCgroupAllowedCpus(this.root, this.selfPid);
    const cpus = own === null ? all : all.filter((c) => own.cpus.includes(c));
    const line =
      cpus.length === all.length || own === null
        ? null
        : `placing only on CPUs ${formatCpuList(cpus) || 'none'} of ${formatCpuList(all)}: those the agent's cgroup ${own.cgroup} allows (/${own.path})`;
    if (line !== null && line !== this.cpusetLine) this.log(line);
    this.cpusetLine = line;
    return cpus;
  }
}
