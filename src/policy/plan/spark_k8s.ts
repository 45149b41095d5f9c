// spark-k8s: kubelet with CPU Manager static (whole cores), Topology Manager single-numa-node at
// pod scope and Memory Manager Static, so a Guaranteed executor pod whose CPUs and memory fit one
// node gets them from one node. Executor pods are sized from the node (field report 000's
// arithmetic) in whole physical cores; local dirs on local PVs backed by each node's NVMe.
import { UsageError } from '../../model/errors.js';
import { formatCpuList } from '../../model/cpuset.js';
import { nvmeDisk } from './spark_standalone.js';
import { memoryPlan, onNodes, reserveGiB } from './budget.js';
import { sizeSparkExecutors, type SparkSizing, type SparkSizingOptions } from './spark_sizing.js';
import type { DecisionBase, Derivation, MachineShare, NodeShare } from './types.js';
import { planTuning } from './tuning.js';

export interface SparkK8sOptions extends SparkSizingOptions {
  readonly sparkHome: string;
  readonly k8sNode: string;
  readonly image: string;
  readonly namespace: string;
  readonly dataDir: string;
  readonly localSizeGiB: number;
}

export interface SparkK8sDecision extends DecisionBase {
  readonly kind: 'spark-k8s';
  readonly options: SparkK8sOptions;
  readonly sizing: SparkSizing;
  readonly reservedCpus: string;
  readonly reservedMemory: { node: number; mi: number }[];
  readonly systemReservedMi: number;
  readonly podCpus: number;
  readonly podMemoryGi: number;
  readonly instances: number;
  readonly volumes: { node: number; disk: string; path: string }[];
}

export const EVICTION_HARD_MI = 100;
const MiB = 1024 ** 2;

/** reservedMemory of a node: the plan's reserve (budget.ts), in whole Mi rounded up. */
export function reservedMiOf(s: NodeShare): number {
  return Math.ceil(reserveGiB(s.memGiB) * 1024);
}

/** What a pod may have on a node: the Memory Manager's MemTotal - reservedMemory, in whole Mi. */
function podBudgetGiB(s: NodeShare): number {
  return (Math.floor(s.memBytes / MiB) - reservedMiOf(s)) / 1024;
}

/** The kubelet's reservedSystemCPUs (a core per node) and the whole cores an executor pod gets of the rest. */
function podCpus(sizing: SparkSizing): { reserved: number[]; podCpus: number; derivations: Derivation[] } {
  const reserved = sizing.executors.flatMap((e) => e.share.coreGroups[0] ?? []);
  const tpc = Math.min(...sizing.executors.map((e) => e.share.threadsPerCore));
  const cpus = sizing.cores * tpc;
  const free = Math.min(...sizing.executors.map((e) => e.share.cpus.length - (e.share.coreGroups[0]?.length ?? 0)));
  if (cpus > free)
    throw new UsageError(
      `spark-k8s: executor pods of ${cpus} CPUs do not fit the ${free} CPUs a node has after reservedSystemCPUs; lower --cores-fraction`,
    );
  return {
    reserved,
    podCpus: cpus,
    derivations: [
      {
        what: 'reservedSystemCPUs',
        formula: 'the first physical core of each node (all its threads), for the kubelet and system',
        value: formatCpuList(reserved),
      },
      {
        what: 'executor pod CPUs',
        formula: `${sizing.cores} cores x ${tpc} thread${tpc === 1 ? '' : 's'} per core = ${cpus} (<= ${free} CPUs left on a node)`,
        value: `${cpus}`,
      },
    ],
  };
}

/** The Memory Manager's reservedMemory per node and the systemReserved that makes its sum add up. */
function kubeletMemory(sizing: SparkSizing): {
  reservedMemory: { node: number; mi: number }[];
  systemReservedMi: number;
  derivations: Derivation[];
} {
  const reservedMemory = sizing.executors.map((e) => ({ node: e.share.node, mi: reservedMiOf(e.share) }));
  const totalMi = reservedMemory.reduce((a, r) => a + r.mi, 0);
  const systemReservedMi = totalMi - EVICTION_HARD_MI;
  return {
    reservedMemory,
    systemReservedMi,
    derivations: [
      {
        what: 'reservedMemory (Memory Manager)',
        formula: `each node's reserve, max(10%, 2 GiB), in Mi rounded up: ${reservedMemory.map((r) => `node ${r.node} ${r.mi}Mi`).join(', ')}`,
        value: reservedMemory.map((r) => `node ${r.node}: ${r.mi}Mi`).join(', '),
      },
      {
        what: 'systemReserved memory',
        formula: `the reservedMemory sum must equal kubeReserved + systemReserved + evictionHard: ${totalMi}Mi - evictionHard ${EVICTION_HARD_MI}Mi`,
        value: `${systemReservedMi}Mi`,
      },
    ],
  };
}

/** A local PV per node on that node's NVMe, where the node has one. */
function localVolumes(sizing: SparkSizing, o: SparkK8sOptions): { node: number; disk: string; path: string }[] {
  return sizing.executors.flatMap((e) => {
    const disk = nvmeDisk(e.share.nvme);
    return disk === null ? [] : [{ node: e.share.node, disk, path: `${o.dataDir}/node${e.share.node}/spark_local` }];
  });
}

function volumeNotes(volumes: readonly unknown[]): string[] {
  return [
    "The Topology Manager aligns CPUs and memory, not volumes: an executor on NUMA node 1 can be given the local PV on node 0's NVMe. Shuffle I/O may cross nodes; only CPU and memory placement is guaranteed.",
    ...(volumes.length === 0
      ? ["No NVMe with a known node: no local PVs; executors use emptyDir local dirs on the node's root disk."]
      : []),
  ];
}

export function planSparkK8s(m: MachineShare, o: SparkK8sOptions): SparkK8sDecision {
  const sizing = sizeSparkExecutors(m, o, [], podBudgetGiB);
  const cpus = podCpus(sizing);
  const kubelet = kubeletMemory(sizing);
  const podMemoryGi = sizing.memoryGiB + sizing.overheadGiB;
  const instances = sizing.executors.length * o.hosts;
  const d: Derivation[] = [
    ...sizing.derivations,
    ...cpus.derivations,
    ...kubelet.derivations,
    {
      what: 'executor pod memory (request = limit)',
      formula: `${sizing.memoryGiB}g + ${sizing.overheadGiB}g overhead = ${podMemoryGi}Gi (<= MemTotal - reservedMemory on every node)`,
      value: `${podMemoryGi}Gi`,
    },
    {
      what: 'spark.executor.instances',
      formula: `${sizing.executors.length} per host x ${o.hosts} host${o.hosts === 1 ? '' : 's'} = ${instances}`,
      value: `${instances}`,
    },
  ];
  const volumes = localVolumes(sizing, o);
  const memory = memoryPlan(
    m,
    onNodes(
      sizing.executors.map((e) => e.share.node),
      [{ what: 'executor pod (heap + overhead)', gib: podMemoryGi }],
      'bind',
    ),
  );
  return {
    kind: 'spark-k8s',
    machine: m,
    tuning: planTuning('spark', m),
    memory,
    options: o,
    sizing,
    reservedCpus: formatCpuList(cpus.reserved),
    reservedMemory: kubelet.reservedMemory,
    systemReservedMi: kubelet.systemReservedMi,
    podCpus: cpus.podCpus,
    podMemoryGi,
    instances,
    volumes,
    derivations: d,
    notes: [...m.notes, ...sizing.notes, ...volumeNotes(volumes)],
  };
}
