// What `numakit run` (and each `bench ab` variant) asks for: a memory policy and a CPU binding,
// as parsed from numactl-style options by src/cli/commands/run_argv.ts and applied by
// src/actuate/run_binding.ts. Plain data.

export type PolicyKind = 'interleave' | 'weighted-interleave' | 'membind' | 'preferred' | 'preferred-many';

export type MemoryOption = { readonly kind: PolicyKind; readonly spec: string } | { readonly kind: 'localalloc' };

export type CpuOption = { readonly kind: 'cpunodebind' | 'physcpubind'; readonly spec: string };

export interface RunArgs {
  /** --all: specs may name nodes/CPUs outside the current cpuset. */
  readonly all: boolean;
  readonly memory?: MemoryOption;
  /** The last of --cpunodebind/--physcpubind (each replaces the affinity in numactl). */
  readonly cpus?: CpuOption;
  /** --balancing: MPOL_F_NUMA_BALANCING with --membind (the kernel may still move pages within the set). */
  readonly balancing: boolean;
  readonly show: boolean;
  readonly hardware: boolean;
  readonly help: boolean;
  readonly command: readonly string[];
}
