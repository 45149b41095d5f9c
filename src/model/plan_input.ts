// Everything `numakit plan` sizes from, read once by src/discover/plan_input.ts and passed to the
// pure planners in src/policy/plan/ (machineShare turns it into what each node offers). Plain data.
import type { OsRelease } from './os_release.js';
import type { Topology } from './topology.js';

/** What the cgroup numakit runs in allows beyond its CPUs (those are in the topology): its memory nodes. */
export interface CgroupLimits {
  /** cpuset.mems.effective (or v1 effective_mems) of numakit's cgroup; null when unknown. */
  readonly mems: { readonly cgroup: string; readonly path: string; readonly ids: number[] } | null;
  /** The smallest memory.max (v1: memory.limit_in_bytes) on numakit's cgroup's path; null when none limits it. */
  readonly memoryMax?: { readonly cgroup: string; readonly path: string; readonly bytes: number } | null;
}

export interface PlanInput {
  readonly topology: Topology;
  /** What the plan calls the machine: "host NAME" for the live system, the root's label otherwise. */
  readonly label: string;
  /** etc/os-release; null when the tree has none (the planner then asks for --distro where it matters). */
  readonly os: OsRelease | null;
  readonly cgroup: CgroupLimits;
}
