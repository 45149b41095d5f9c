// spark-k8s: kubelet with CPU Manager static (whole cores), Topology Manager single-numa-node at
// pod scope and Memory Manager Static, so a Guaranteed executor pod whose CPUs and memory fit one
// node gets them from one node. Executor pods are sized from the node (field report 000's
// arithmetic) in whole physical cores; local dirs on local PVs backed by each node's NVMe.
import { UsageError } from '../../model/errors.js';
import { formatCpuList } from '../../model/cpuset.js';
import { nvmeDisk } from './spark_standalone.js';
import { sizeSparkExecutors, type SparkSizing, type SparkSizingOptions } from './spark_sizing.js';
import type { DecisionBase, Derivation, MachineShare } from './types.js';
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

export const SYSTEM_RESERVED_MI_PER_NODE = 1024;
export const EVICTION_HARD_MI = 100;

/** Shrinks executor memory (overhead kept at its percent) until a pod fits every node after its reserved memory. */
function fitMemory(sizing: SparkSizing, reserved: { node: number; mi: number }[], pct: number, d: Derivation[]): { memoryGiB: number; overheadGiB: number } {
  const leftGi = Math.min(...sizing.executors.map((e) => Math.floor((e.share.memGiB * 1024 - reserved.find((r) => r.node === e.share.node)!.mi) / 1024)));
  let mem = sizing.memoryGiB;
  const over = (x: number) => Math.max(1, Math.round((x * pct) / 100));
  while (mem > 1 && mem + over(mem) > leftGi) mem--;
  if (mem + over(mem) > leftGi) throw new UsageError(`spark-k8s: no executor pod fits a node after its reserved memory (${leftGi}Gi left)`);
  if (mem !== sizing.memoryGiB) {
    d.push({ what: 'executor memory, fitted to the node after reservedMemory', formula: `${sizing.memoryGiB}g + ${sizing.overheadGiB}g > ${leftGi}Gi left on a node -> ${mem}g + ${over(mem)}g`, value: `${mem}g` });
  }
  return { memoryGiB: mem, overheadGiB: over(mem) };
}

export function planSparkK8s(m: MachineShare, o: SparkK8sOptions): SparkK8sDecision {
  const sizing = sizeSparkExecutors(m, o);
  const d: Derivation[] = [...sizing.derivations];
  const reserved = sizing.executors.flatMap((e) => e.share.coreGroups[0] ?? []);
  d.push({ what: 'reservedSystemCPUs', formula: 'the first physical core of each node (all its threads), for the kubelet and system', value: formatCpuList(reserved) });
  const tpc = Math.min(...sizing.executors.map((e) => e.share.threadsPerCore));
  const podCpus = sizing.cores * tpc;
  const free = Math.min(...sizing.executors.map((e) => e.share.cpus.length - (e.share.coreGroups[0]?.length ?? 0)));
  d.push({ what: 'executor pod CPUs', formula: `${sizing.cores} cores x ${tpc} thread${tpc === 1 ? '' : 's'} per core = ${podCpus} (<= ${free} CPUs left on a node)`, value: `${podCpus}` });
  if (podCpus > free) throw new UsageError(`spark-k8s: executor pods of ${podCpus} CPUs do not fit the ${free} CPUs a node has after reservedSystemCPUs; lower --cores-fraction`);
  const reservedMemory = sizing.executors.map((e, i) => ({ node: e.share.node, mi: SYSTEM_RESERVED_MI_PER_NODE + (i === 0 ? EVICTION_HARD_MI : 0) }));
  const systemReservedMi = SYSTEM_RESERVED_MI_PER_NODE * reservedMemory.length;
  d.push({ what: 'reservedMemory (Memory Manager)', formula: `systemReserved ${systemReservedMi}Mi (${SYSTEM_RESERVED_MI_PER_NODE}Mi per node) + evictionHard ${EVICTION_HARD_MI}Mi on node ${reservedMemory[0]!.node} = ${systemReservedMi + EVICTION_HARD_MI}Mi`, value: reservedMemory.map((r) => `node ${r.node}: ${r.mi}Mi`).join(', ') });
  const fitted = fitMemory(sizing, reservedMemory, o.overheadPct, d);
  const podMemoryGi = fitted.memoryGiB + fitted.overheadGiB;
  d.push({ what: 'executor pod memory (request = limit)', formula: `${fitted.memoryGiB}g + ${fitted.overheadGiB}g overhead = ${podMemoryGi}Gi`, value: `${podMemoryGi}Gi` });
  const instances = sizing.executors.length * o.hosts;
  d.push({ what: 'spark.executor.instances', formula: `${sizing.executors.length} per host x ${o.hosts} host${o.hosts === 1 ? '' : 's'} = ${instances}`, value: `${instances}` });
  const volumes = sizing.executors.flatMap((e) => {
    const disk = nvmeDisk(e.share.nvme);
    return disk === null ? [] : [{ node: e.share.node, disk, path: `${o.dataDir}/node${e.share.node}/spark_local` }];
  });
  const notes = [...m.notes, ...sizing.notes, 'The Topology Manager aligns CPUs and memory, not volumes: an executor on NUMA node 1 can be given the local PV on node 0\'s NVMe. Shuffle I/O may cross nodes; only CPU and memory placement is guaranteed.'];
  if (volumes.length === 0) notes.push('No NVMe with a known node: no local PVs; executors use emptyDir local dirs on the node\'s root disk.');
  return { kind: 'spark-k8s', machine: m, tuning: planTuning('spark', m), options: o, sizing: { ...sizing, ...fitted }, reservedCpus: formatCpuList(reserved), reservedMemory, systemReservedMi, podCpus, podMemoryGi, instances, volumes, derivations: d, notes };
}
