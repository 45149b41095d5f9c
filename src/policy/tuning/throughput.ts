// throughput: many unpinned workers and bulk network traffic. The kernel places pages
// (numa_balancing 1), THP always for fewer TLB misses but no direct compaction in page faults
// (defrag madvise: khugepaged collapses in the background), receive work steered to the NIC's
// node with RPS/RFS (Documentation/networking/scaling.rst; 32768 flow entries as field report 001).
import type { Change } from '../../model/change.js';
import { irqbalanceChanges, nicIrqChanges, rpsChanges, sysctl, thp } from './common.js';
import type { Profile, TuningInput } from './input.js';

function build(input: TuningInput): Change[] {
  const changes: Change[] = [
    sysctl('kernel.numa_balancing', 1, 'unpinned workers: let the kernel move pages to the threads using them'),
    ...thp('always', 'madvise', 'huge pages for bulk memory, compaction in the background only'),
    sysctl('vm.zone_reclaim_mode', 0, 'allocate from the other node before reclaiming page cache on this one'),
    ...nicIrqChanges(input.topology),
    ...rpsChanges(input.topology, 32768),
  ];
  return [...irqbalanceChanges(input, changes), ...changes];
}

export const throughput: Profile = {
  name: 'throughput',
  summary: 'unpinned bulk work: numa_balancing 1, THP always (defrag madvise), zone_reclaim 0, NIC IRQs and RPS/RFS on their node',
  tunedBase: 'throughput-performance',
  build,
};
