// THE table: what each workload class wants of every kernel setting numakit knows, with the
// reason and its source. doctor's profiles, apply's profiles and plan's "Before you start" all
// read it (through resolve.ts); nothing else in numakit says what a workload wants.
//
// Where experts disagree, the entry says which case is which. AutoNUMA for a database or a JVM
// depends on placement: bound (by numakit plan or run, numactl, systemd NUMAPolicy=/CPUAffinity=,
// a cpuset) wants it off, since the kernel neither scans nor migrates memory under an explicit
// memory policy and its hinting faults on the rest only cost; unpinned wants it on (report 002).
import type { Advice, ClassEntry, ScanWant, WorkloadClass } from './types.js';

const KERNEL_SCAN: ScanWant = {
  delayMs: 1000,
  periodMinMs: 1000,
  periodMaxMs: 60000,
  sizeMb: 256,
  minPeriodFloorMs: 1000,
  minPeriodCeilingMs: 300000,
  sizeFloorMb: 64,
};
// Large-memory OLTP (report 002): scanning every 60 s to 5 min, 256 MB a pass, converged without scan storms.
const SLOW_SCAN: ScanWant = {
  delayMs: 1000,
  periodMinMs: 60000,
  periodMaxMs: 300000,
  sizeMb: 256,
  minPeriodFloorMs: 10000,
  minPeriodCeilingMs: 600000,
  sizeFloorMb: 256,
};
const NOT_ALWAYS = ['madvise', 'defer', 'defer+madvise', 'never'];

const a = <T>(value: T, reason: string, sources: Advice<T>['sources']): Advice<T> => ({ value, reason, sources });

const BOUND_OFF = a(
  'off' as const,
  'its memory is bound by an explicit policy, which AutoNUMA neither scans nor migrates; hinting faults on everything else only cost CPU and move pages behind the placement',
  ['kernel-mempolicy', 'report-000'],
);
const UNPINNED_ON = a(
  'on' as const,
  'an unpinned process keeps its memory where it first touched it; AutoNUMA moves hot pages to the threads that use them',
  ['kernel-sysctl-kernel', 'report-002'],
);
const scan = (s: ScanWant, why: string) =>
  a(s, why, s === SLOW_SCAN ? ['report-002', 'kernel-sysctl-kernel'] : ['kernel-sysctl-kernel']);
const DEFAULT_SCAN = scan(
  KERNEL_SCAN,
  'the kernel defaults: more frequent or smaller scans cost system CPU time and migrate pages back and forth',
);
const ZONE_RECLAIM_OFF = a(
  0 as const,
  'a full node takes memory from another node instead of first dropping its own page cache (or writing back and swapping)',
  ['kernel-sysctl-vm', 'report-002'],
);
const DEFRAG_NOT_ALWAYS = a(
  { prefer: 'madvise', accept: NOT_ALWAYS },
  'defrag "always" stalls every huge page fault on direct compaction',
  ['kernel-thp'],
);
const KSM_OFF = a(
  'off' as const,
  'a merged page lives on one node, so its other users read remote memory; ksmd scans in the background',
  ['kernel-ksm', 'report-002'],
);
const PERFORMANCE = a(
  'performance' as const,
  'clocks stay up: bursts and short requests do not wait for the frequency to ramp up',
  ['kernel-cpufreq', 'report-000'],
);
const IRQ_LOCAL = a(
  'local' as const,
  "each NIC's interrupts and receive work run on its own node, placed by irqbalance (NUMA-aware) or by hand",
  ['irqbalance', 'report-002'],
);
const IRQ_PINNED = a(
  'pinned' as const,
  "each NIC's IRQs are pinned to its node's CPUs and irqbalance is kept off them (it rewrites hand-set affinities)",
  ['irqbalance', 'report-000'],
);
const RPS = a(
  'busy-nics' as const,
  'a busy NIC with fewer receive queues than CPUs leaves receive work on a few CPUs: RPS spreads it over its node, RFS steers each flow to its consumer',
  ['kernel-scaling', 'report-001'],
);
const RQ_AFFINITY = a(2 as const, "each I/O completes on the CPU that submitted it, in that CPU's cache and node", [
  'kernel-block',
  'report-002',
]);
const SWAPPINESS_10 = (why: string) => a(10, why, ['kernel-sysctl-vm', 'report-002']);

export const TABLE: Readonly<Record<WorkloadClass, ClassEntry>> = {
  general: {
    summary: 'no workload assumption: only what is wrong for any workload',
    placement: 'depends',
    settings: {
      autonuma: { bound: BOUND_OFF, unpinned: null },
      autonumaScan: DEFAULT_SCAN,
      thpDefrag: DEFRAG_NOT_ALWAYS,
      zoneReclaim: ZONE_RECLAIM_OFF,
      irq: IRQ_LOCAL,
    },
  },
  spark: {
    summary:
      'batch executors bound one per node (Spark: one executor per NUMA node, its CPUs and memory bound with numactl): AutoNUMA off, THP never, IRQs pinned per node',
    placement: 'bound',
    settings: {
      autonuma: a(
        'off',
        'executors are bound to their node (numactl --cpunodebind/--membind): AutoNUMA never migrates their memory and its hinting faults only cost',
        ['report-000', 'kernel-mempolicy'],
      ),
      thpEnabled: a(
        { prefer: 'never', accept: ['never', 'madvise'] },
        'JVM heaps: khugepaged collapses and fault-time compaction show up as GC jitter; madvise leaves huge pages to -XX:+UseTransparentHugePages',
        ['report-000', 'kernel-thp', 'jdk'],
      ),
      thpDefrag: a({ prefer: 'never', accept: NOT_ALWAYS }, 'no compaction inside page faults of executor heaps', [
        'report-000',
        'kernel-thp',
      ]),
      zoneReclaim: ZONE_RECLAIM_OFF,
      governor: PERFORMANCE,
      irq: IRQ_PINNED,
      rps: RPS,
      rqAffinity: a(2, "shuffle and spill I/O completes on the submitting CPU, on the executor's node", [
        'kernel-block',
        'report-002',
      ]),
      tuned: a(
        {
          profile: 'throughput-performance',
          accept: ['throughput-performance', 'latency-performance', 'network-throughput'],
        },
        'sets the governor and scheduler knobs in one place; its THP "always" is overridden by a child profile',
        ['tuned', 'report-000'],
      ),
    },
  },
  database: {
    summary:
      'one large database: AutoNUMA by placement (bound: off; unpinned: on with slow scans), THP madvise, swappiness 10, KSM off',
    placement: 'depends',
    settings: {
      autonuma: { bound: BOUND_OFF, unpinned: UNPINNED_ON },
      autonumaScan: scan(
        SLOW_SCAN,
        'a large buffer pool scanned every 60 s to 5 min in 256 MB steps converges without scan storms',
      ),
      thpEnabled: a(
        { prefer: 'madvise', accept: ['madvise', 'never'] },
        'huge pages only where the database asks for them; no background collapse jitter',
        ['report-002', 'kernel-thp'],
      ),
      thpDefrag: a(
        { prefer: 'madvise', accept: NOT_ALWAYS },
        'no direct compaction in page faults outside the regions the database marked',
        ['report-002', 'kernel-thp'],
      ),
      zoneReclaim: ZONE_RECLAIM_OFF,
      swappiness: SWAPPINESS_10('the buffer pool stays in memory instead of being swapped out to keep page cache'),
      ksm: KSM_OFF,
      governor: PERFORMANCE,
      irq: IRQ_LOCAL,
      rps: RPS,
      rqAffinity: RQ_AFFINITY,
      tuned: a(
        {
          profile: 'latency-performance',
          accept: ['latency-performance', 'throughput-performance', 'network-latency'],
        },
        'the base of a database tuned profile (THP overridden to madvise in a child profile)',
        ['tuned', 'report-002'],
      ),
    },
  },
  latency: {
    summary:
      'pinned, jitter-sensitive services (Redis, trading, ad serving): AutoNUMA off, THP madvise with defrag never, swappiness 10',
    placement: 'bound',
    settings: {
      autonuma: a('off', 'the services are pinned: a NUMA hinting fault is an extra page fault on the request path', [
        'kernel-sysctl-kernel',
        'report-002',
      ]),
      thpEnabled: a(
        { prefer: 'madvise', accept: ['madvise', 'never'] },
        'no background collapses; THP only where the service asks (Redis wants it off)',
        ['kernel-thp', 'redis'],
      ),
      thpDefrag: a(
        { prefer: 'never', accept: ['never', 'defer'] },
        'no compaction inside a page fault on the request path',
        ['kernel-thp'],
      ),
      zoneReclaim: ZONE_RECLAIM_OFF,
      swappiness: SWAPPINESS_10(
        'the working set stays in memory: a swapped-out page is a disk read on the request path',
      ),
      ksm: KSM_OFF,
      governor: PERFORMANCE,
      irq: IRQ_PINNED,
      rqAffinity: RQ_AFFINITY,
      tuned: a(
        { profile: 'latency-performance', accept: ['latency-performance', 'network-latency', 'realtime'] },
        'performance governor and low C-state latency',
        ['tuned'],
      ),
    },
  },
  throughput: {
    summary:
      'unpinned batch and network throughput: AutoNUMA on, THP always (defrag madvise), RPS on busy NICs, performance governor',
    placement: 'unpinned',
    settings: {
      autonuma: a('on', 'many unpinned workers: the kernel moves hot pages to the threads using them', [
        'kernel-sysctl-kernel',
      ]),
      autonumaScan: DEFAULT_SCAN,
      thpEnabled: a({ prefer: 'always', accept: ['always', 'madvise'] }, 'fewer TLB misses on bulk memory', [
        'kernel-thp',
        'tuned',
      ]),
      thpDefrag: a(
        { prefer: 'madvise', accept: NOT_ALWAYS },
        'huge pages are collapsed in the background, not in page faults',
        ['kernel-thp'],
      ),
      zoneReclaim: ZONE_RECLAIM_OFF,
      governor: PERFORMANCE,
      irq: IRQ_LOCAL,
      rps: RPS,
      rqAffinity: RQ_AFFINITY,
      tuned: a(
        { profile: 'throughput-performance', accept: ['throughput-performance', 'network-throughput'] },
        'governor, scheduler and THP for throughput in one place',
        ['tuned'],
      ),
    },
  },
  jvm: {
    summary: 'large JVM heaps: THP madvise, swappiness 10; AutoNUMA off when bound (numakit plan jvm, numactl)',
    placement: 'depends',
    settings: {
      autonuma: { bound: BOUND_OFF, unpinned: null },
      autonumaScan: DEFAULT_SCAN,
      thpEnabled: a(
        { prefer: 'madvise', accept: ['madvise', 'never'] },
        'the JVM asks for huge pages itself (-XX:+UseTransparentHugePages uses madvise); "always" adds collapse and compaction stalls to GC',
        ['jdk', 'kernel-thp'],
      ),
      thpDefrag: DEFRAG_NOT_ALWAYS,
      zoneReclaim: ZONE_RECLAIM_OFF,
      swappiness: a(10, 'a collector walks the whole heap: a swapped-out heap page turns a GC pause into disk reads', [
        'elasticsearch',
        'kernel-sysctl-vm',
      ]),
      irq: IRQ_LOCAL,
    },
  },
  'memory-tiering': {
    summary:
      'CXL or PMEM memory-only nodes as a slower tier: AutoNUMA in tiering mode (promotes hot pages), demotion on, zone_reclaim 0',
    placement: 'any',
    settings: {
      autonuma: a('tiering', 'hot pages on a slower CPU-less node are promoted to a CPU node (numa_balancing = 2)', [
        'kernel-tiering',
      ]),
      autonumaScan: DEFAULT_SCAN,
      thpDefrag: DEFRAG_NOT_ALWAYS,
      zoneReclaim: a(0, 'a full fast node demotes cold pages to the slow tier instead of reclaiming page cache', [
        'kernel-sysctl-vm',
        'kernel-tiering',
      ]),
      irq: IRQ_LOCAL,
      demotion: a(
        'on',
        'cold pages move to the slower node under memory pressure instead of being reclaimed or swapped',
        ['kernel-tiering'],
      ),
      promoteRate: a(
        { share: 0.1, floorShare: 0.01 },
        "promotion traffic takes the slower tier's bandwidth from the application: at most a tenth of it, and not so little that hot pages stay slow",
        ['kernel-promote-rate'],
      ),
    },
  },
};
