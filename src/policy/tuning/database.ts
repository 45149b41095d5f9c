// database: one large database process left to AutoNUMA (field report 002). numa_balancing on
// with slow scanning (1 s delay, 60-300 s period, 256 MB a pass) so it converges without a
// scan storm, THP only where the database asks (madvise), little swapping, no KSM, I/O and NIC
// interrupts on their node.
import type { Change } from '../../model/change.js';
import { irqbalanceChanges, ksmOffChanges, nicIrqChanges, nvmeCompletionChanges, sysctl, thp } from './common.js';
import type { Profile, TuningInput } from './input.js';

const SCAN = 'slow AutoNUMA scanning: converges without a scan storm';

function build(input: TuningInput): Change[] {
  const changes: Change[] = [
    sysctl('kernel.numa_balancing', 1, 'let the kernel move hot pages next to the threads using them'),
    sysctl('kernel.numa_balancing_scan_delay_ms', 1000, SCAN),
    sysctl('kernel.numa_balancing_scan_period_min_ms', 60000, SCAN),
    sysctl('kernel.numa_balancing_scan_period_max_ms', 300000, SCAN),
    sysctl('kernel.numa_balancing_scan_size_mb', 256, SCAN),
    ...thp('madvise', 'madvise', 'huge pages only where the database asks; no background collapse jitter'),
    sysctl('vm.swappiness', 10, 'keep the buffer pool in memory'),
    sysctl('vm.zone_reclaim_mode', 0, 'allocate from the other node before reclaiming page cache on this one'),
    ...ksmOffChanges(input),
    ...nicIrqChanges(input.topology),
    ...nvmeCompletionChanges(input.topology),
  ];
  return [...irqbalanceChanges(input, changes), ...changes];
}

export const database: Profile = {
  name: 'database',
  summary: 'one big database on AutoNUMA: numa_balancing 1 with slow scans, THP madvise, swappiness 10, zone_reclaim 0, KSM off, rq_affinity 2',
  tunedBase: 'latency-performance',
  build,
};
