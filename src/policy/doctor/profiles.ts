// Workload profiles: what each kind of workload wants from the kernel. Doctor's rules read
// these instead of hard-coding one answer for every machine.
//   spark:      one pinned executor per node (field report 000): AutoNUMA off, THP never.
//   database:   one large unpinned process (field report 002): AutoNUMA on with slow scans,
//               THP madvise, swappiness 10, rq_affinity 2.
//   jvm:        large heaps: THP never or madvise; AutoNUMA as the placement says.
//   latency:    pinned, no jitter: AutoNUMA off, THP never/madvise, performance governor.
//   throughput: performance governor, RPS on NICs with few queues.
//   general:    no assumption about the workload; only what is wrong for any workload.
import { UsageError } from '../../model/errors.js';

export type ProfileName = 'general' | 'spark' | 'database' | 'jvm' | 'latency' | 'throughput';
export const PROFILE_NAMES: readonly ProfileName[] = ['general', 'spark', 'database', 'jvm', 'latency', 'throughput'];

export interface ScanGuidance {
  /** scan_period_min_ms below this scans too often (sy time, "scan storms"). */
  readonly periodMinAggressiveBelow: number;
  /** scan_period_min_ms above this reacts too slowly for the profile. */
  readonly periodMinLazyAbove: number;
  /** scan_size_mb below this identifies hot pages too slowly on large memory. */
  readonly sizeMbSmallBelow: number;
  /** Values to suggest: delay, period min, period max, size. */
  readonly suggest: { readonly delayMs: number; readonly periodMinMs: number; readonly periodMaxMs: number; readonly sizeMb: number };
}

export interface Profile {
  readonly name: ProfileName;
  readonly summary: string;
  /** kernel.numa_balancing wanted: off for pinned workloads, on for unpinned ones, or either. */
  readonly numaBalancing: 'off' | 'on' | 'any';
  /** THP 'enabled' values that suit the profile; the first is suggested. */
  readonly thpAllowed: readonly string[];
  /** Highest vm.swappiness that suits the profile, or null for no opinion. */
  readonly swappinessMax: number | null;
  readonly wantsPerformanceGovernor: boolean;
  /** NVMe queue/rq_affinity wanted (2 = complete on the submitting CPU), or null for no opinion. */
  readonly rqAffinity: 2 | null;
  /** RPS/RFS wanted on busy NICs with fewer receive queues than CPUs on their node. */
  readonly wantsRps: boolean;
  /** tuned profiles that suit the workload; the first is suggested. */
  readonly tunedWanted: readonly string[];
  readonly scan: ScanGuidance;
}

const KERNEL_DEFAULT_SCAN = { delayMs: 1000, periodMinMs: 1000, periodMaxMs: 60000, sizeMb: 256 };
const DEFAULT_SCAN: ScanGuidance = { periodMinAggressiveBelow: 1000, periodMinLazyAbove: 300000, sizeMbSmallBelow: 64, suggest: KERNEL_DEFAULT_SCAN };
// Large-memory OLTP (report 002): scanning every 60 s to 5 min in 256 MB steps avoided the scan overhead.
const DB_SCAN: ScanGuidance = {
  periodMinAggressiveBelow: 10000,
  periodMinLazyAbove: 600000,
  sizeMbSmallBelow: 256,
  suggest: { delayMs: 1000, periodMinMs: 60000, periodMaxMs: 300000, sizeMb: 256 },
};

export const PROFILES: Record<ProfileName, Profile> = {
  general: {
    name: 'general', summary: 'no workload assumption: only what is wrong for any workload',
    numaBalancing: 'any', thpAllowed: ['always', 'madvise', 'never'], swappinessMax: null, wantsPerformanceGovernor: false,
    rqAffinity: null, wantsRps: false, tunedWanted: [], scan: DEFAULT_SCAN,
  },
  spark: {
    name: 'spark', summary: 'one pinned executor per node (numactl/cgroup bound): AutoNUMA off, THP never',
    numaBalancing: 'off', thpAllowed: ['never', 'madvise'], swappinessMax: null, wantsPerformanceGovernor: true,
    rqAffinity: 2, wantsRps: true, tunedWanted: ['throughput-performance', 'latency-performance', 'network-throughput'], scan: DEFAULT_SCAN,
  },
  database: {
    name: 'database', summary: 'one large unpinned database: AutoNUMA on with slow scans, THP madvise, swappiness 10',
    numaBalancing: 'on', thpAllowed: ['madvise', 'never'], swappinessMax: 10, wantsPerformanceGovernor: true,
    rqAffinity: 2, wantsRps: true, tunedWanted: ['latency-performance', 'throughput-performance', 'network-latency'], scan: DB_SCAN,
  },
  jvm: {
    name: 'jvm', summary: 'large JVM heaps: THP never or madvise',
    numaBalancing: 'any', thpAllowed: ['never', 'madvise'], swappinessMax: null, wantsPerformanceGovernor: false,
    rqAffinity: null, wantsRps: false, tunedWanted: [], scan: DEFAULT_SCAN,
  },
  latency: {
    name: 'latency', summary: 'pinned, jitter-sensitive: AutoNUMA off, THP never, performance governor, swappiness 10',
    numaBalancing: 'off', thpAllowed: ['never', 'madvise'], swappinessMax: 10, wantsPerformanceGovernor: true,
    rqAffinity: 2, wantsRps: false, tunedWanted: ['latency-performance', 'network-latency', 'realtime'], scan: DEFAULT_SCAN,
  },
  throughput: {
    name: 'throughput', summary: 'batch and network throughput: performance governor, RPS on busy NICs',
    numaBalancing: 'any', thpAllowed: ['always', 'madvise', 'never'], swappinessMax: null, wantsPerformanceGovernor: true,
    rqAffinity: 2, wantsRps: true, tunedWanted: ['throughput-performance', 'network-throughput'], scan: DEFAULT_SCAN,
  },
};

export function profileByName(name: string): Profile {
  const p = (PROFILES as Record<string, Profile | undefined>)[name];
  if (!p) throw new UsageError(`--profile ${name}: unknown profile; one of ${PROFILE_NAMES.join(', ')}`);
  return p;
}
