// latency: pinned, latency-sensitive services. No NUMA hinting faults (numa_balancing 0), no
// compaction stalls in page faults (THP madvise, defrag never), little swapping, no KSM
// scanning, interrupts and I/O completions on the device's node.
import type { Change } from '../../model/change.js';
import { irqbalanceChanges, ksmOffChanges, nicIrqChanges, nvmeCompletionChanges, sysctl, thp } from './common.js';
import type { Profile, TuningInput } from './input.js';

function build(input: TuningInput): Change[] {
  const changes: Change[] = [
    sysctl('kernel.numa_balancing', 0, 'NUMA hinting faults add unpredictable stalls'),
    ...thp('madvise', 'never', 'no compaction stalls inside page faults'),
    sysctl('vm.swappiness', 10, 'keep working sets in memory'),
    sysctl('vm.zone_reclaim_mode', 0, 'allocate from the other node before reclaiming page cache on this one'),
    ...ksmOffChanges(input),
    ...nicIrqChanges(input.topology),
    ...nvmeCompletionChanges(input.topology),
  ];
  return [...irqbalanceChanges(input, changes), ...changes];
}

export const latency: Profile = {
  name: 'latency',
  summary: 'pinned latency-sensitive services: numa_balancing 0, THP madvise (defrag never), swappiness 10, KSM off, IRQs on their node',
  tunedBase: 'latency-performance',
  build,
};
