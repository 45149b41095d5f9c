// Everything `numakit doctor`'s rules look at, gathered once by src/discover/doctor_input.ts
// and passed to the pure rules in src/policy/doctor/. Plain data: a rule never reads a file.
import type { Fact } from './fact.js';
import type { PlacedProcess } from './placement.js';
import type { ProcessSample } from './stat.js';
import type { CpuId, NodeId, Pid, Topology } from './topology.js';

/** Data a rule needs, or why it could not be gathered (said in the rule's "not checked"). */
export type Gathered<T> =
  | { readonly ok: true; readonly value: T; readonly source: string }
  | { readonly ok: false; readonly reason: string };

export function gathered<T>(value: T, source: string): Gathered<T> {
  return { ok: true, value, source };
}

export function missing<T>(reason: string): Gathered<T> {
  return { ok: false, reason };
}

export interface IrqInfo {
  readonly irq: number;
  /** smp_affinity_list: the CPUs asked for. */
  readonly affinity: readonly CpuId[];
  /** effective_affinity_list where the kernel has it. */
  readonly effective: readonly CpuId[] | null;
  /** Interrupts served since boot, per CPU and in total (from /proc/interrupts). */
  readonly counts: ReadonlyMap<CpuId, number>;
  readonly total: number;
  /** Chip and action names as /proc/interrupts prints them. */
  readonly desc: string;
}

export interface KsmState {
  readonly run: Fact<number>;
  readonly pagesSharing: Fact<number>;
  readonly mergeAcrossNodes: Fact<number>;
}

export interface SwapUsage {
  readonly totalBytes: number;
  readonly usedBytes: number;
}

export interface RxQueue {
  readonly queue: string;
  readonly rpsCpus: CpuId[];
  readonly flowCnt: number | null;
}

export interface IrqbalanceConfig {
  readonly path: string;
  readonly bannedIrqs: number[];
  readonly bannedCpus: CpuId[];
}

/** nodeN/numastat counters (pages), as numastat prints them. */
export interface NumastatCounters {
  readonly numa_hit: number;
  readonly numa_miss: number;
  readonly numa_foreign: number;
  readonly interleave_hit: number;
  readonly local_node: number;
  readonly other_node: number;
}

/** A large process as stat samples it (memory per node, CPU time per node, allowed CPUs),
 * plus the cgroup whose cpuset restricts it, when one does ("/system.slice/mysqld.service"). */
export interface ProcessPlacement extends ProcessSample {
  readonly cpusetCgroup: string | null;
}

/** The processes doctor's rules (and fleet's host facts) look for by name: comms holds only these. */
export const DOCTOR_DAEMONS: readonly string[] = ['irqbalance', 'ksmtuned', 'tuned'];

export interface DoctorInput {
  readonly topology: Topology;
  /** Device IRQs with affinity and counts, keyed by IRQ number. */
  readonly irqs: Gathered<Record<number, IrqInfo>>;
  /** comm -> pids of the processes named DOCTOR_DAEMONS (the daemons the rules look for by name). */
  readonly comms: Gathered<Record<string, Pid[]>>;
  readonly irqbalanceConfig: IrqbalanceConfig | null;
  readonly ksm: KsmState;
  readonly swap: Fact<SwapUsage>;
  readonly numastat: Gathered<Record<NodeId, NumastatCounters>>;
  /** Governor per CPU; not gathered when cpufreq is absent (VMs, containers). */
  readonly governors: Gathered<Record<CpuId, string>>;
  readonly tunedProfile: Fact<string[]>;
  /** rq_affinity of each NVMe namespace (block device). */
  readonly rqAffinity: { readonly disk: string; readonly controller: string; readonly value: Fact<number> }[];
  /** Receive queues of each NIC. */
  readonly rxQueues: Record<string, RxQueue[]>;
  readonly rpsSockFlowEntries: Fact<number>;
  readonly processes: Gathered<ProcessPlacement[]>;
  /** Processes of the sampling size or more when more ran than were sampled (model/large_process.ts MAX_SAMPLED). */
  readonly processesOver?: number;
  /**
   * Processes whose /proc/PID/status this user was refused (/proc mounted with hidepid=noaccess,
   * a security module): their size is unknown, so they may be large ones the process rules did
   * not see. Absent or 0: none.
   */
  readonly hiddenProcesses?: number;
  /** Other users' processes are not listed at all (/proc mounted hidepid=invisible, not root). */
  readonly othersInvisible?: boolean;
  /** Processes of 1 GiB or more and where they may run: what a profile's placement is detected from. */
  readonly placed: Gathered<PlacedProcess[]>;
  /** sys/kernel/mm/numa/demotion_enabled (5.15+): cold pages demoted to slower nodes. */
  readonly demotion: Fact<boolean>;
}
