// kernel.numa_balancing while the agent runs. The value is a bit mask since 5.18
// (kernel/sched/fair.c): NUMA_BALANCING_NORMAL (1) migrates pages and tasks between CPU nodes,
// which the agent does itself (--numa-balancing off switches it off); NUMA_BALANCING_MEMORY_TIERING
// (2) promotes hot pages from slow memory-only nodes (CXL, PMEM) and is left on: promotion is then
// the kernel's job, and the agent never pulls memory back from those nodes (--promote or not). Pure.

export const NUMA_BALANCING_NORMAL = 1;
export const NUMA_BALANCING_MEMORY_TIERING = 2;

export interface BalancingPlan {
  /** The value to write while the agent runs; null: leave it. */
  readonly write: number | null;
  /** The kernel promotes from memory-only nodes (tiering mode). */
  readonly tiering: boolean;
}

export function balancingWhileRunning(current: number | null, mode: 'off' | 'keep'): BalancingPlan {
  const tiering = current !== null && (current & NUMA_BALANCING_MEMORY_TIERING) !== 0;
  if (current === null || mode === 'keep') return { write: null, tiering };
  const next = current & ~NUMA_BALANCING_NORMAL;
  return { write: next === current ? null : next, tiering };
}
