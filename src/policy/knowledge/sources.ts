// Where the table's advice comes from: kernel documentation and source, vendor and project
// documentation, and the field reports numakit was built from (operators' write-ups of tuning
// Spark, MySQL and Redis hosts by hand; not published, so each says what its recipe was: a
// user cannot look up "report 000"). Every entry of the table names at least one.
export const SOURCES = {
  'kernel-sysctl-kernel': 'Linux Documentation/admin-guide/sysctl/kernel.rst: numa_balancing and numa_balancing_scan_*',
  'kernel-sysctl-vm': 'Linux Documentation/admin-guide/sysctl/vm.rst: zone_reclaim_mode, swappiness',
  'kernel-mempolicy':
    'Linux Documentation/admin-guide/mm/numa_memory_policy.rst and mm/mempolicy.c (mpol_misplaced, vma_policy_mof): memory under an explicit policy is not scanned or migrated by AutoNUMA unless MPOL_F_NUMA_BALANCING was asked',
  'kernel-thp': 'Linux Documentation/admin-guide/mm/transhuge.rst: enabled and defrag',
  'kernel-ksm': 'Linux Documentation/admin-guide/mm/ksm.rst: run, merge_across_nodes',
  'kernel-scaling': 'Linux Documentation/networking/scaling.rst: RPS and RFS',
  'kernel-block': 'Linux Documentation/ABI/stable/sysfs-block: queue/rq_affinity',
  'kernel-cpufreq': 'Linux Documentation/admin-guide/pm/cpufreq.rst: scaling governors',
  'kernel-tiering':
    'Linux Documentation/admin-guide/sysctl/kernel.rst (numa_balancing = 2, memory tiering, 5.18+) and Documentation/ABI/testing/sysfs-kernel-mm-numa (demotion_enabled, 5.15+)',
  'kernel-promote-rate':
    'Linux Documentation/admin-guide/sysctl/kernel.rst: numa_balancing_promote_rate_limit_MBps, "a rule of thumb is to set this to less than 1/10 of the PMEM node write bandwidth"',
  irqbalance: "irqbalance(1): places each IRQ on its device's NUMA node; --banirq leaves an IRQ alone",
  tuned:
    'tuned-profiles(7): throughput-performance (sets transparent_hugepages=always), latency-performance, network-latency',
  jdk: 'java(1): -XX:+UseTransparentHugePages uses madvise; -XX:+AlwaysPreTouch, -XX:+UseNUMA',
  redis: 'Redis administration documentation: THP off for latency; a BGSAVE fork can need up to twice the memory',
  elasticsearch: 'Elasticsearch documentation: heap at most 50% of the memory and below about 31 GiB; swapping off',
  'report-000':
    "an operator's write-up of a Spark cluster made NUMA-aware (not published; its recipe: one executor per NUMA node bound with numactl --cpunodebind/--membind, executor memory = node memory x 0.85 with the overhead on top, THP never, AutoNUMA off, NIC IRQs pinned per node, the performance governor)",
  'report-001':
    "an operator's NUMA tuning guide (not published; its recipe: numactl policies per service, Redis pinned to one node's CPUs and memory, JVM heaps larger than a node interleaved, RPS/RFS on NICs with few queues)",
  'report-002':
    "an operator's write-up of a large MySQL on AutoNUMA (not published; its recipe: AutoNUMA on with slow scans, 60 s to 5 min in 256 MB steps, THP madvise, swappiness 10, zone_reclaim_mode 0, KSM off, NVMe rq_affinity 2, the latency-performance tuned profile)",
} as const;

export type SourceId = keyof typeof SOURCES;
