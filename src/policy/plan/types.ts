// The vocabulary of `numakit plan`: what a planner decides (one Decision per workload, a union
// on `kind`) and what the renderers turn it into (files plus PLAN.md). Pure data.
import type { OsRelease } from '../../model/os_release.js';
import type { CpuId, Device, NodeId } from '../../model/topology.js';
import type { MachineFacts, TuningProfile } from '../knowledge/resolve.js';
import type { SettingKey } from '../knowledge/types.js';

/** One number of the plan and how it came from this machine's facts. */
export interface Derivation {
  readonly what: string;
  readonly formula: string;
  readonly value: string;
}

/** A file to install: `path` is where it goes on the server (absolute), or relative for PLAN.md. */
export interface PlanFile {
  readonly path: string;
  readonly content: string;
  readonly mode: number;
  /** One line for PLAN.md's file list. */
  readonly about: string;
}

/** What one NUMA node offers a plan. */
export interface NodeShare {
  readonly node: NodeId;
  readonly cpus: CpuId[];
  readonly cpuList: string;
  readonly physicalCores: number;
  readonly threadsPerCore: number;
  /** CPUs of each physical core (SMT siblings together), in CPU order. */
  readonly coreGroups: CpuId[][];
  /** CPUs of each L3 cache (EPYC CCX/CCD, a socket's L3), in CPU order; [] when sysfs gives no caches. */
  readonly l3Groups: CpuId[][];
  readonly memBytes: number;
  /** memBytes in GiB, exact (PLAN.md shows it with num()). */
  readonly memGiB: number;
  /** MemFree now (null when the snapshot does not say). */
  readonly freeGiB: number | null;
  /** NVMe controllers and NICs whose firmware-given node is this one. */
  readonly nvme: Device[];
  readonly nics: Device[];
}

/** The machine as a plan sees it, with the notes every plan repeats. */
export interface MachineShare {
  readonly label: string;
  readonly summary: string;
  /** Nodes with both CPUs and memory: the ones that get work. */
  readonly usable: NodeShare[];
  /** Nodes with memory (usable or memory-only), for interleave masks. */
  readonly memoryNodes: NodeId[];
  /** The memory-only (slower tier) nodes by the usable node nearest them (distance, then id). */
  readonly slower: Readonly<Record<NodeId, NodeId[]>>;
  /** HMAT access0 read bandwidth of each node with memory, MB/s; null when the firmware gives none. */
  readonly readBandwidth: Readonly<Record<NodeId, number | null>>;
  readonly totalMemGiB: number;
  readonly notes: string[];
  /** Set when numakit's cgroup keeps CPUs or memory nodes from the plan: what it sizes from, as a derivation. */
  readonly restriction: Derivation | null;
  /** The memory.max (v1: memory.limit_in_bytes) of numakit's cgroup when below the machine's memory (a container's limit). */
  readonly memoryMax: { readonly cgroup: string; readonly path: string; readonly gib: number } | null;
  /** Current kernel settings that matter to every plan ("numa_balancing 1"). */
  readonly kernel: {
    thp: string | null;
    thpDefrag: string | null;
    numaBalancing: number | null;
    zoneReclaim: number | null;
    swappiness: number | null;
  };
  /** What changes a profile's advice on this machine (nodes, memory-only nodes, kernel). */
  readonly facts: MachineFacts;
  /** The distribution (etc/os-release), or null when the tree does not say. */
  readonly os: OsRelease | null;
}

/** Fields every decision carries. */
export interface DecisionBase {
  readonly machine: MachineShare;
  /** The knowledge table's settings for the workload's profile ("Before you start"). */
  readonly tuning: PlanTuning;
  /** What the plan commits on each node, against MemTotal minus the reserve. */
  readonly memory: MemoryPlan;
  readonly derivations: Derivation[];
  readonly notes: string[];
}

/** The memory each node is committed (src/policy/plan/budget.ts works it out). */
export type MemPolicyKind = 'bind' | 'preferred' | 'interleave' | 'none';

export interface Commitment {
  readonly what: string;
  readonly gib: number;
}

export interface NodeMemory {
  readonly node: number;
  readonly memGiB: number;
  /** MemFree now, from the snapshot (null when unknown). */
  readonly freeGiB: number | null;
  readonly reserveGiB: number;
  readonly budgetGiB: number;
  readonly items: Commitment[];
  readonly committedGiB: number;
  readonly policy: MemPolicyKind;
}

export interface MemoryPlan {
  readonly nodes: NodeMemory[];
  /** Set when the plan cannot know what it commits (a service's own memory): what bounds it instead. */
  readonly unknown: string | null;
}

/** "Before you start": the knowledge table's settings for the plan's profile (src/policy/plan/tuning.ts). */
export interface TuningRow {
  readonly setting: SettingKey;
  readonly label: string;
  readonly want: string;
  /** What the snapshot says now, or null when it does not tell (doctor checks it on the host). */
  readonly now: string | null;
  /** ok: already so; change: apply sets it; nothing: moot here; check: not in the snapshot; persist: boot-time only. */
  readonly status: 'ok' | 'change' | 'nothing' | 'check' | 'persist';
}

export interface PlanTuning {
  readonly profile: TuningProfile;
  readonly rows: TuningRow[];
  /** The commands that set (dry run first) and check them. */
  readonly apply: string;
  readonly doctor: string;
}
