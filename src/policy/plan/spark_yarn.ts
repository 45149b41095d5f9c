// spark-yarn: the NodeManager's own NUMA awareness (Hadoop 3.1+, yarn.nodemanager.numa-awareness.*)
// with the topology given explicitly from this machine, containers through the
// LinuxContainerExecutor (NUMA awareness works only with it), sized so one executor container
// fills one node's share. On one NUMA node NUMA awareness is left off (it would bind every
// container to the whole machine, and needs the LinuxContainerExecutor): only the sizes remain.
// The NodeManager also offers room for the application's ApplicationMaster container (client or
// cluster mode, yarn_containers.ts), and every container is counted as the scheduler rounds it.
import { budgetGiB, memoryPlan, onNodes } from './budget.js';
import { num } from './machine.js';
import { sizeSparkExecutors, type SparkSizing, type SparkSizingOptions } from './spark_sizing.js';
import type { Commitment, DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';
import { type AmContainer, amContainer, type DeployMode, yarnContainerMb } from './yarn_containers.js';

export interface SparkYarnOptions extends SparkSizingOptions {
  readonly sparkHome: string;
  readonly hadoopConf: string;
  readonly group: string;
  readonly deployMode: DeployMode;
  /** The AM's heap (spark.yarn.am.memory in client mode, spark.driver.memory in cluster mode), MiB. */
  readonly amMemoryMb: number;
  /** yarn.scheduler.minimum-allocation-mb of the ResourceManager. */
  readonly minAllocationMb: number;
}

export interface SparkYarnDecision extends DecisionBase {
  readonly kind: 'spark-yarn';
  readonly options: SparkYarnOptions;
  readonly sizing: SparkSizing;
  /** Per node: memory (MB) and vcores offered to containers. */
  readonly nodes: { node: number; memoryMb: number; vcores: number }[];
  readonly totalMb: number;
  readonly totalVcores: number;
  /** An executor's request (heap + overhead) and the container the scheduler gives it. */
  readonly executorRequestMb: number;
  readonly containerMb: number;
  readonly am: AmContainer;
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

/** Sizes executors with the AM's container and the rounding within each node's budget. */
function sizeWithAm(
  m: MachineShare,
  o: SparkYarnOptions,
  am: AmContainer,
): { sizing: SparkSizing; containerMb: number } {
  const daemons = [...YARN_DAEMONS, { what: 'ApplicationMaster container', gib: am.containerMb / 1024 }];
  const fits = (z: SparkSizing, c: number) =>
    z.executors.every((e) => c / 1024 + z.daemons.reduce((a, x) => a + x.gib, 0) <= budgetGiB(e.share.memGiB) + 1e-9);
  const first = sizeSparkExecutors(m, o, daemons);
  const c1 = yarnContainerMb((first.memoryGiB + first.overheadGiB) * 1024, o.minAllocationMb);
  if (fits(first, c1)) return { sizing: first, containerMb: c1 };
  // The rounding took the container over a budget: size again with room for the largest rounding.
  const slack = (o.minAllocationMb - 1) / 1024;
  const again = sizeSparkExecutors(m, o, daemons, (s) => budgetGiB(s.memGiB) - slack);
  return {
    sizing: again,
    containerMb: yarnContainerMb((again.memoryGiB + again.overheadGiB) * 1024, o.minAllocationMb),
  };
}

function amDerivations(o: SparkYarnOptions, am: AmContainer): Derivation[] {
  return [
    {
      what: `ApplicationMaster container (${am.mode} mode)`,
      formula: `${am.memoryKey} ${am.heapMb} MB + ${am.overheadKey} max(${am.heapMb} x 10%, 384) = ${am.overheadMb} MB = ${am.requestMb} MB, rounded up to a multiple of yarn.scheduler.minimum-allocation-mb ${o.minAllocationMb}`,
      value: `${am.containerMb} MB, ${am.cores} vcore`,
    },
  ];
}

/** What the NodeManager offers, per node and in total, and what the application asks of it. */
interface YarnFigures {
  readonly sizing: SparkSizing;
  readonly am: AmContainer;
  readonly containerMb: number;
  readonly executorRequestMb: number;
  readonly nodeMb: number;
  readonly nodeVcores: number;
  readonly nodes: { node: number; memoryMb: number; vcores: number }[];
  readonly totalMb: number;
  readonly totalVcores: number;
  readonly instances: number;
  readonly parallelism: number;
  readonly numaAware: boolean;
}

function yarnFigures(m: MachineShare, o: SparkYarnOptions, am: AmContainer): YarnFigures {
  const { sizing, containerMb } = sizeWithAm(m, o, am);
  const nodeMb = containerMb + am.containerMb;
  const nodeVcores = sizing.cores + am.cores;
  const nodes = sizing.executors.map((e) => ({ node: e.share.node, memoryMb: nodeMb, vcores: nodeVcores }));
  const instances = nodes.length * o.hosts;
  return {
    sizing,
    am,
    containerMb,
    executorRequestMb: (sizing.memoryGiB + sizing.overheadGiB) * 1024,
    nodeMb,
    nodeVcores,
    nodes,
    totalMb: containerMb * nodes.length + am.containerMb,
    totalVcores: sizing.cores * nodes.length + am.cores,
    instances,
    parallelism: 2 * instances * sizing.cores,
    numaAware: m.facts.nodes > 1,
  };
}

/** The NodeManager's NUMA resources and totals, then the application's executor count and parallelism. */
function yarnDerivations(o: SparkYarnOptions, f: YarnFigures): Derivation[] {
  const { sizing, am } = f;
  const n = f.nodes.length;
  return [
    ...sizing.derivations,
    ...amDerivations(o, am),
    {
      what: 'executor container',
      formula: `(${sizing.memoryGiB}g + ${sizing.overheadGiB}g) x 1024 = ${f.executorRequestMb} MB, rounded up to a multiple of ${o.minAllocationMb}`,
      value: `${f.containerMb} MB`,
    },
    ...(f.numaAware
      ? [
          {
            what: 'yarn.nodemanager.numa-awareness.N.memory / .cpus',
            formula: `one executor container per node and room for the AM, which may land on any node: ${f.containerMb} + ${am.containerMb} MB, ${sizing.cores} + ${am.cores} vcores`,
            value: `${f.nodeMb} / ${f.nodeVcores}`,
          },
        ]
      : []),
    {
      what: 'yarn.nodemanager.resource.memory-mb',
      formula: `${f.containerMb} x ${n} executor${n === 1 ? '' : 's'} + ${am.containerMb} (ApplicationMaster) = ${f.totalMb}`,
      value: `${f.totalMb}`,
    },
    {
      what: 'yarn.nodemanager.resource.cpu-vcores',
      formula: `${sizing.cores} x ${n} executor${n === 1 ? '' : 's'} + ${am.cores} (ApplicationMaster) = ${f.totalVcores}`,
      value: `${f.totalVcores}`,
    },
    {
      what: 'spark.executor.instances',
      formula: `${n} per host x ${o.hosts} host${o.hosts === 1 ? '' : 's'} = ${f.instances}`,
      value: `${f.instances}`,
    },
    {
      what: 'spark.default.parallelism',
      formula: `2 x ${f.instances} executors x ${sizing.cores} cores = ${f.parallelism}`,
      value: `${f.parallelism}`,
    },
  ];
}

function yarnNotes(m: MachineShare, o: SparkYarnOptions, f: YarnFigures): string[] {
  const { sizing, am } = f;
  return [
    ...m.notes,
    ...sizing.notes,
    `yarn.scheduler.maximum-allocation-mb on the ResourceManager must be at least ${f.containerMb} or the executor containers are refused; its yarn.scheduler.minimum-allocation-mb must be ${o.minAllocationMb} (--min-allocation), the step every container is rounded up to.`,
    `The ApplicationMaster (${am.containerMb} MB: ${num(am.containerMb / 1024)} GiB) may be placed on any node, so each node's budget keeps room for it${o.hosts > 1 ? '; on a cluster of several hosts one NodeManager runs it, the others keep that room unused' : ''}.`,
    f.numaAware
      ? "The NodeManager and DataNode heaps (1 GiB each, the Hadoop defaults) are not bound to a node, so each node's budget counts them; raise them in yarn-env.sh/hadoop-env.sh and plan again if yours are larger."
      : 'The NodeManager and DataNode heaps (1 GiB each, the Hadoop defaults) are counted in the budget; raise them in yarn-env.sh/hadoop-env.sh and plan again if yours are larger.',
  ];
}

export function planSparkYarn(m: MachineShare, o: SparkYarnOptions): SparkYarnDecision {
  const am = amContainer(o.deployMode, o.amMemoryMb, o.minAllocationMb);
  const f = yarnFigures(m, o, am);
  const { sizing, containerMb } = f;
  const items: Commitment[] = [{ what: 'executor container', gib: containerMb / 1024 }, ...sizing.daemons];
  const memory = memoryPlan(
    m,
    onNodes(
      sizing.executors.map((e) => e.share.node),
      items,
      f.numaAware ? 'bind' : 'none',
    ),
  );
  return {
    kind: 'spark-yarn',
    machine: m,
    tuning: planTuning('spark', m),
    memory,
    options: o,
    sizing,
    nodes: f.nodes,
    totalMb: f.totalMb,
    totalVcores: f.totalVcores,
    executorRequestMb: f.executorRequestMb,
    containerMb,
    am,
    numaAware: f.numaAware,
    instances: f.instances,
    parallelism: f.parallelism,
    derivations: yarnDerivations(o, f),
    notes: yarnNotes(m, o, f),
  };
}
