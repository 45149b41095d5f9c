// The machine stage of an agent pass: the layout (read again only on hotplug), the CPUs the agent
// may place on (its own cgroup's cpuset within the nodes' CPUs, logged when it leaves some out),
// and /proc/stat now; free memory, numastat and idle CPUs (node sampler) only when asked for.
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

/** What a pass knows of the machine. */
export interface MachineNow {
  readonly layout: NodeLayout;
  /** The CPUs the agent places on. */
  readonly cpus: readonly number[];
  readonly nodeIds: readonly number[];
  /** Free memory, numastat and idle CPUs since the last pass: read at the first call. */
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

  constructor(
    private readonly root: SysRoot,
    private readonly selfPid: number,
    private readonly log: (line: string) => void,
  ) {
    this.files = new MachineFiles(root);
  }

  read(): MachineNow {
    const previous = this.layout;
    const layout = (this.layout = readLayout(this.files, previous));
    if (layout !== previous) this.cpus = this.placeable(layout);
    const before = this.cpuTimes;
    const after = readCpuTimes(this.files);
    this.cpuTimes = after;
    let reading: MachineReading | null = null;
    return {
      layout,
      cpus: this.cpus,
      nodeIds: layout.nodes.map((n) => n.id),
      reading: () => (reading ??= readMachine(this.root, layout, before, after)),
    };
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
