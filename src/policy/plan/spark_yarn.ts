// spark-yarn: the NodeManager's own NUMA awareness (Hadoop 3.1+, yarn.nodemanager.numa-awareness.*)
// with the topology given explicitly from this machine, containers through the
// LinuxContainerExecutor (NUMA awareness works only with it), sized so one executor container
// fills one node's share. On one NUMA node NUMA awareness is left off (it would bind every
// container to the whole machine, and needs the LinuxContainerExecutor): only the sizes remain.
import { memoryPlan, onNodes } from './budget.js';
import { executorCommitments, sizeSparkExecutors, type SparkSizing, type SparkSizingOptions } from './spark_sizing.js';
import type { Commitment, DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';

export interface SparkYarnOptions extends SparkSizingOptions {
  readonly sparkHome: string;
  readonly hadoopConf: string;
  readonly group: string;
}

export interface SparkYarnDecision extends DecisionBase {
  readonly kind: 'spark-yarn';
  readonly options: SparkYarnOptions;
  readonly sizing: SparkSizing;
  /** Per node: memory (MB) and vcores offered to containers. */
  readonly nodes: { node: number; memoryMb: number; vcores: number }[];
  readonly totalMb: number;
  readonly totalVcores: number;
  readonly containerMb: number;
  /** yarn.nodemanager.numa-awareness on (more than one NUMA node). */
  readonly numaAware: boolean;
  readonly instances: number;
  readonly parallelism: number;
}

/** The NodeManager's and DataNode's heaps (1 GiB each by default): not bound, so counted on every node they could use. */
export const YARN_DAEMONS: Commitment[] = [
  { what: 'NodeManager JVM', gib: 1 },
  { what: 'DataNode JVM', gib: 1 },
];

export function planSparkYarn(m: MachineShare, o: SparkYarnOptions): SparkYarnDecision {
  const sizing = sizeSparkExecutors(m, o, YARN_DAEMONS);
  const containerMb = (sizing.memoryGiB + sizing.overheadGiB) * 1024;
  const nodes = sizing.executors.map((e) => ({ node: e.share.node, memoryMb: containerMb, vcores: sizing.cores }));
  const totalMb = containerMb * nodes.length;
  const totalVcores = sizing.cores * nodes.length;
  const instances = nodes.length * o.hosts;
  const parallelism = 2 * instances * sizing.cores;
  const numaAware = m.facts.nodes > 1;
  const d: Derivation[] = [
    ...sizing.derivations,
    {
      what: 'container size',
      formula: `(${sizing.memoryGiB}g + ${sizing.overheadGiB}g) x 1024 = ${containerMb} MB`,
      value: `${containerMb}`,
    },
    ...(numaAware
      ? [
          {
            what: 'yarn.nodemanager.numa-awareness.N.memory / .cpus',
            formula: `one executor container per node: ${containerMb} MB, ${sizing.cores} vcores`,
            value: `${containerMb} / ${sizing.cores}`,
          },
        ]
      : []),
    {
      what: 'yarn.nodemanager.resource.memory-mb',
      formula: `${containerMb} x ${nodes.length} nodes = ${totalMb}`,
      value: `${totalMb}`,
    },
    {
      what: 'yarn.nodemanager.resource.cpu-vcores',
      formula: `${sizing.cores} x ${nodes.length} nodes = ${totalVcores}`,
      value: `${totalVcores}`,
    },
    {
      what: 'spark.executor.instances',
      formula: `${nodes.length} per host x ${o.hosts} host${o.hosts === 1 ? '' : 's'} = ${instances}`,
      value: `${instances}`,
    },
    {
      what: 'spark.default.parallelism',
      formula: `2 x ${instances} executors x ${sizing.cores} cores = ${parallelism}`,
      value: `${parallelism}`,
    },
  ];
  const notes = [
    ...m.notes,
    ...sizing.notes,
    `yarn.scheduler.maximum-allocation-mb on the ResourceManager must be at least ${containerMb} or the executor containers are refused.`,
  ];
  const memory = memoryPlan(
    m,
    onNodes(
      sizing.executors.map((e) => e.share.node),
      executorCommitments(sizing),
      numaAware ? 'bind' : 'none',
    ),
  );
  notes.push(
    numaAware
      ? "The NodeManager and DataNode heaps (1 GiB each, the Hadoop defaults) are not bound to a node, so each node's budget counts them; raise them in yarn-env.sh/hadoop-env.sh and plan again if yours are larger."
      : 'The NodeManager and DataNode heaps (1 GiB each, the Hadoop defaults) are counted in the budget; raise them in yarn-env.sh/hadoop-env.sh and plan again if yours are larger.',
  );
  return {
    kind: 'spark-yarn',
    machine: m,
    tuning: planTuning('spark', m),
    memory,
    options: o,
    sizing,
    nodes,
    totalMb,
    totalVcores,
    containerMb,
    numaAware,
    instances,
    parallelism,
    derivations: d,
    notes,
  };
}
