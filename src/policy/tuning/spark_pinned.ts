// spark-pinned: executors pinned one per node with numactl (field report 000). The kernel must
// not move their pages (numa_balancing 0), the JVM heap wants no THP (never), devices serve
// their own node.
import type { Change } from '../../model/change.js';
import { irqbalanceChanges, nicIrqChanges, nvmeCompletionChanges, sysctl, thp } from './common.js';
import type { Profile, TuningInput } from './input.js';

function build(input: TuningInput): Change[] {
  const changes: Change[] = [
    ...thp('never', 'never', 'JVM heaps: THP compaction stalls and GC jitter'),
    sysctl('kernel.numa_balancing', 0, 'pinned processes: automatic page migration only moves pages back and forth'),
    sysctl('vm.zone_reclaim_mode', 0, 'allocate from the other node before reclaiming page cache on this one'),
    ...nicIrqChanges(input.topology),
    ...nvmeCompletionChanges(input.topology),
  ];
  return [...irqbalanceChanges(input, changes), ...changes];
}

export const sparkPinned: Profile = {
  name: 'spark-pinned',
  summary: 'processes pinned per node: THP never, numa_balancing 0, zone_reclaim 0, NIC IRQs and NVMe completions on their node',
  tunedBase: 'throughput-performance',
  build,
};
