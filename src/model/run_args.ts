// What `numakit run` (and each `bench ab` variant) asks for: a memory policy and a CPU binding,
// as parsed from numactl-style options by src/cli/commands/run_argv.ts and applied by
// src/actuate/run_binding.ts. Plain data.

export type PolicyKind = 'interleave' | 'weighted-interleave' | 'membind' | 'preferred' | 'preferred-many';

export type MemoryOption = { readonly kind: PolicyKind; readonly spec: string } | { readonly kind: 'localalloc' };

export type CpuOption = { readonly kind: 'cpunodebind' | 'physcpubind'; readonly spec: string };

/** What is done to an attached segment or file, in the order given. */
export type ShmStep =
  | { readonly kind: 'policy'; readonly memory: MemoryOption; readonly flag: string }
  | { readonly kind: 'strict' | 'touch' | 'dump' | 'dump-nodes' };

/** numactl's --shm/--file: where the range is, how to attach it, and the steps on it. */
export interface ShmArgs {
  /** shm: a SysV segment keyed by ftok(path, id); file: a file in tmpfs or hugetlbfs. */
  readonly kind: 'shm' | 'file';
  readonly path: string;
  /** Bytes; undefined: the segment's (or, from --offset, the file's) size. */
  readonly length?: number;
  readonly offset: number;
  /** Permissions of a segment or file created here (--shmmode, octal; numactl's 0600). */
  readonly mode: number;
  /** ftok's project id (--shmid). */
  readonly id: number;
  /** SHM_HUGETLB (--huge): the segment is made of huge pages. */
  readonly huge: boolean;
  readonly steps: readonly ShmStep[];
}

export interface RunArgs {
  /** --all: specs may name nodes/CPUs outside the current cpuset. */
  readonly all: boolean;
  readonly memory?: MemoryOption;
  /** The last of --cpunodebind/--physcpubind (each replaces the affinity in numactl). */
  readonly cpus?: CpuOption;
  /** --balancing: MPOL_F_NUMA_BALANCING with --membind (the kernel may still move pages within the set). */
  readonly balancing: boolean;
  /**
   * --fallback: where the cpuset forbids the nodes or CPUs, step down (membind -> preferred ->
   * CPU binding only -> none) with a line per step, instead of refusing as numactl does.
   */
  readonly fallback?: boolean;
  readonly show: boolean;
  readonly hardware: boolean;
  readonly help: boolean;
  readonly command: readonly string[];
  /** --shm/--file: a policy on a segment or file instead of a command. */
  readonly shm?: ShmArgs;
}
