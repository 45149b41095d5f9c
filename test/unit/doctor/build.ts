// Builds DoctorInputs in code for the rule tables: a healthy 2-socket, 2-node machine
// (node0 CPUs 0-3, node1 CPUs 4-7, 16 GiB each, one NIC and one NVMe per node) that each case
// changes in one place.
import type { DoctorInput, IrqInfo, ProcessPlacement } from '../../../src/model/doctor_input.js';
import { absent, present, type Fact } from '../../../src/model/fact.js';
import type { Cpu, Device, KernelFacts, NumaNode, Topology } from '../../../src/model/topology.js';

export const GiB = 2 ** 30;

export function node(id: number, cpus: number[], memGiB = 16, freeGiB = 8): NumaNode {
  return {
    id,
    cpus,
    memTotalBytes: memGiB * GiB,
    memFreeBytes: freeGiB * GiB,
    hasCpu: cpus.length > 0,
    hasMemory: memGiB > 0,
    hasNormalMemory: memGiB > 0,
    distances: {},
    hugepages: [],
    access: null,
    access1: null,
    memoryTier: null,
  };
}

export function withDistances(nodes: NumaNode[], matrix: number[][]): NumaNode[] {
  return nodes.map((n, i) => ({ ...n, distances: Object.fromEntries(nodes.map((o, j) => [o.id, matrix[i]![j]!])) }));
}

function cpusOf(nodes: NumaNode[]): Cpu[] {
  return nodes.flatMap((n, i) =>
    n.cpus.map(
      (id): Cpu => ({
        id,
        node: n.id,
        online: true,
        package: i,
        die: 0,
        cluster: null,
        core: id,
        siblings: [id],
        l3: n.cpus,
        allowed: true,
      }),
    ),
  );
}

export function kernel(over: Partial<Record<keyof KernelFacts, unknown>> = {}): KernelFacts {
  const k: KernelFacts = {
    cmdline: present('proc/cmdline', 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet'),
    numaBalancing: present('proc/sys/kernel/numa_balancing', 0),
    numaBalancingScan: {
      delayMs: present('proc/sys/kernel/numa_balancing_scan_delay_ms', 1000),
      periodMinMs: present('proc/sys/kernel/numa_balancing_scan_period_min_ms', 1000),
      periodMaxMs: present('proc/sys/kernel/numa_balancing_scan_period_max_ms', 60000),
      sizeMb: present('proc/sys/kernel/numa_balancing_scan_size_mb', 256),
    },
    zoneReclaimMode: present('proc/sys/vm/zone_reclaim_mode', 0),
    swappiness: present('proc/sys/vm/swappiness', 10),
    thpEnabled: present('sys/kernel/mm/transparent_hugepage/enabled', 'madvise'),
    thpDefrag: present('sys/kernel/mm/transparent_hugepage/defrag', 'madvise'),
    hypervisor: present('proc/cpuinfo', false),
    productName: present('sys/class/dmi/id/product_name', 'TEST'),
    kernelRelease: present('proc/sys/kernel/osrelease', '6.1.0'),
    memTotalBytes: present('proc/meminfo', 32 * GiB),
  };
  return { ...k, ...(over as Partial<KernelFacts>) };
}

export function device(
  kind: Device['kind'],
  name: string,
  nodeId: number | null,
  irqs: number[],
  extra: Partial<Device> = {},
): Device {
  return {
    kind,
    name,
    node: nodeId,
    pciAddress: `0000:${String(irqs[0] ?? 0).padStart(2, '0')}:00.0`,
    transport: kind === 'nvme' ? 'pcie' : null,
    driver: null,
    details: {},
    irqs,
    ...extra,
  };
}

export function topology(over: Partial<Topology> = {}): Topology {
  const nodes =
    over.nodes ??
    withDistances(
      [node(0, [0, 1, 2, 3]), node(1, [4, 5, 6, 7])],
      [
        [10, 21],
        [21, 10],
      ],
    );
  return {
    nodes,
    cpus: over.cpus ?? cpusOf(nodes),
    caches: [],
    devices: [
      device('net', 'eth0', 0, [40, 41], { details: { speedMbps: 25000 }, queues: { rx: 2, tx: 2 } }),
      device('nvme', 'nvme0', 1, [50, 51], { details: { namespaces: 'nvme0n1' } }),
    ],
    possibleNodes: nodes.map((n) => n.id),
    possibleCpus: nodes.flatMap((n) => n.cpus),
    kernel: kernel(),
    cpuset: null,
    warnings: [],
    ...over,
  };
}

export function irq(
  n: number,
  affinity: number[],
  counts: Record<number, number> = {},
  effective: number[] | null = null,
): IrqInfo {
  const total = Object.values(counts).reduce((s, c) => s + c, 0);
  const byCpu = new Map(Object.entries(counts).map(([cpu, c]) => [Number(cpu), c]));
  return { irq: n, affinity, effective, counts: byCpu, total, desc: `PCI-MSI irq${n}` };
}

export function ok<T>(value: T) {
  return { ok: true as const, value, source: 'test' };
}

export function no(reason: string) {
  return { ok: false as const, reason };
}

export function fact<T>(path: string, v: T | null): Fact<T> {
  return v === null ? absent(path, 'missing') : present(path, v);
}

export function proc(
  pid: number,
  comm: string,
  bytesByNode: Record<number, number>,
  cpusAllowed: number[],
  cpuNodes: Record<number, number>,
  cpusetCgroup: string | null = null,
): ProcessPlacement {
  const nodes = Object.fromEntries(
    Object.entries(bytesByNode).map(([n, b]) => [
      n,
      { hugeBytes: 0, heapBytes: b, stackBytes: 0, privateBytes: 0, totalBytes: b },
    ]),
  );
  const totalBytes = Object.values(bytesByNode).reduce((s, b) => s + b, 0);
  return {
    pid,
    comm,
    memory: { kind: 'ok', nodes, totalBytes, policies: { default: totalBytes } },
    cmdline: comm,
    threads: 4,
    cpusAllowed,
    memsAllowed: [0, 1],
    cpuNodes: Object.fromEntries(Object.entries(cpuNodes).map(([n, s]) => [n, s])),
    lastNodes: Object.keys(cpuNodes).map(Number),
    windowSeconds: 0,
    cpusetCgroup,
  };
}

/** The healthy baseline: every rule passes under the general profile. */
export function input(over: Partial<DoctorInput> = {}): DoctorInput {
  return {
    topology: topology(),
    irqs: ok({
      40: irq(40, [0, 1, 2, 3], { 0: 100 }),
      41: irq(41, [0, 1, 2, 3], { 1: 100 }),
      50: irq(50, [4, 5], { 4: 100 }),
      51: irq(51, [6, 7], { 6: 100 }),
    }),
    comms: ok({ systemd: [1], irqbalance: [700], sshd: [800], tuned: [600] }),
    irqbalanceConfig: { path: 'etc/default/irqbalance', bannedIrqs: [40, 41, 50, 51], bannedCpus: [] },
    ksm: {
      run: present('sys/kernel/mm/ksm/run', 0),
      pagesSharing: present('sys/kernel/mm/ksm/pages_sharing', 0),
      mergeAcrossNodes: present('sys/kernel/mm/ksm/merge_across_nodes', 1),
    },
    swap: present('proc/meminfo', { totalBytes: 4 * GiB, usedBytes: 0 }),
    numastat: ok({
      0: {
        numa_hit: 1000000,
        numa_miss: 0,
        numa_foreign: 0,
        interleave_hit: 100,
        local_node: 990000,
        other_node: 10000,
      },
      1: {
        numa_hit: 1000000,
        numa_miss: 0,
        numa_foreign: 0,
        interleave_hit: 100,
        local_node: 990000,
        other_node: 10000,
      },
    }),
    governors: ok(Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((c) => [c, 'performance']))),
    tunedProfile: present('etc/tuned/active_profile', ['latency-performance']),
    rqAffinity: [
      { disk: 'nvme0n1', controller: 'nvme0', value: present('sys/class/block/nvme0n1/queue/rq_affinity', 2) },
    ],
    rxQueues: {
      eth0: [
        { queue: 'rx-0', rpsCpus: [0, 1, 2, 3], flowCnt: 2048 },
        { queue: 'rx-1', rpsCpus: [0, 1, 2, 3], flowCnt: 2048 },
      ],
    },
    rpsSockFlowEntries: present('proc/sys/net/core/rps_sock_flow_entries', 4096),
    processes: ok([]),
    demotion: present('sys/kernel/mm/numa/demotion_enabled', false),
    ...over,
    placed: over.placed ?? placedFrom(over.processes ?? ok([])),
  };
}

/** What placement detection sees of the sampled processes (their status lines), >= 1 GiB only. */
export function placedFrom(ps: DoctorInput['processes']): DoctorInput['placed'] {
  if (!ps.ok) return ps;
  return ok(
    ps.value
      .filter((p) => p.memory.kind === 'ok' && p.memory.totalBytes >= GiB)
      .map((p) => ({
        pid: p.pid,
        comm: p.comm,
        totalBytes: p.memory.kind === 'ok' ? p.memory.totalBytes : 0,
        cpusAllowed: p.cpusAllowed,
        memsAllowed: p.memsAllowed,
      })),
  );
}
