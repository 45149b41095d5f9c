// spark-standalone: one worker per NUMA node, each a systemd unit with its own work dir, local
// dirs on that node's NVMe and ports that do not collide, executors bound to the node through a
// numactl `java` wrapper. On a machine with one NUMA node there is nothing to bind to: one worker,
// no wrapper, the same memory arithmetic. Pure: Topology facts + options -> decision.
import { memoryPlan, onNodes } from './budget.js';
import {
  type ExecutorSize,
  executorCommitments,
  sizeSparkExecutors,
  type SparkSizing,
  type SparkSizingOptions,
} from './spark_sizing.js';
import type { DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';

export interface SparkStandaloneOptions extends SparkSizingOptions {
  readonly sparkHome: string;
  readonly javaHome: string;
  readonly master: string;
  readonly user: string;
  readonly dataDir: string;
  readonly wrapperHome: string;
}

export interface SparkWorker {
  readonly node: number;
  readonly cpuList: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly workerDir: string;
  readonly localDir: string;
  /** NVMe namespace to mount at dataDir/nodeN, or null when the node has none. */
  readonly localDisk: string | null;
  readonly logDir: string;
  readonly port: number;
  readonly webuiPort: number;
  readonly nics: { name: string; irqs: number }[];
}

export interface SparkStandaloneDecision extends DecisionBase {
  readonly kind: 'spark-standalone';
  readonly options: SparkStandaloneOptions;
  readonly sizing: SparkSizing;
  readonly workers: SparkWorker[];
  /** Executors bound to their node through the java wrapper; false on a one-node machine (all memory is local). */
  readonly bound: boolean;
  readonly coresMax: number;
  readonly parallelism: number;
}

/** The first namespace of the node's first NVMe ("nvme0n1"), or the controller name. */
export function nvmeDisk(devs: { name: string; details: Record<string, string | number> }[]): string | null {
  const d = devs[0];
  if (d === undefined) return null;
  const ns = String(d.details.namespaces ?? '')
    .split(',')
    .filter((s) => s !== '');
  return ns[0] ?? `${d.name}n1`;
}

export const WORKER_PORT_BASE = 7078;
export const WORKER_WEBUI_BASE = 8081;

/** The worker JVM itself (its unit sets SPARK_DAEMON_MEMORY=1g), bound to its node with its executors. */
export const WORKER_DAEMON_GIB = 1;

/** The worker of executor i: its node's CPUs and NVMe, its own dirs, ports one above the previous worker's. */
function sparkWorker(e: ExecutorSize, i: number, sizing: SparkSizing, o: SparkStandaloneOptions): SparkWorker {
  const n = e.share.node;
  return {
    node: n,
    cpuList: e.share.cpuList,
    cores: sizing.cores,
    memoryGiB: sizing.memoryGiB + sizing.overheadGiB,
    workerDir: `/var/lib/spark/node${n}`,
    localDir: `${o.dataDir}/node${n}/spark_local`,
    localDisk: nvmeDisk(e.share.nvme),
    logDir: `/var/log/spark/node${n}`,
    port: WORKER_PORT_BASE + i,
    webuiPort: WORKER_WEBUI_BASE + i,
    nics: e.share.nics.map((d) => ({ name: d.name, irqs: d.irqs.length })),
  };
}

function noDiskNotes(workers: readonly SparkWorker[], o: SparkStandaloneOptions): string[] {
  return workers
    .filter((w) => w.localDisk === null)
    .map(
      (w) =>
        `node ${w.node} has no NVMe of its own: ${o.dataDir}/node${w.node} will be on whatever disk holds it, and shuffle I/O may cross nodes.`,
    );
}

function workerPortDerivation(w: SparkWorker): Derivation {
  return {
    what: `node ${w.node} worker ports`,
    formula: `${WORKER_PORT_BASE} + ${w.port - WORKER_PORT_BASE}, web UI ${WORKER_WEBUI_BASE} + ${w.webuiPort - WORKER_WEBUI_BASE}`,
    value: `${w.port}, ${w.webuiPort}`,
  };
}

export function planSparkStandalone(machine: MachineShare, o: SparkStandaloneOptions): SparkStandaloneDecision {
  const sizing = sizeSparkExecutors(machine, o, [{ what: 'worker JVM', gib: WORKER_DAEMON_GIB }]);
  const workers = sizing.executors.map((e, i) => sparkWorker(e, i, sizing, o));
  const coresMax = sizing.hostCores * o.hosts;
  const parallelism = 2 * coresMax;
  const derivations: Derivation[] = [
    ...sizing.derivations,
    {
      what: 'node N worker memory (SPARK_WORKER_MEMORY)',
      formula: `${sizing.memoryGiB}g + ${sizing.overheadGiB}g overhead = ${sizing.memoryGiB + sizing.overheadGiB}g`,
      value: `${sizing.memoryGiB + sizing.overheadGiB}g`,
    },
    {
      what: 'spark.cores.max',
      formula: `${sizing.hostCores} worker cores x ${o.hosts} host${o.hosts === 1 ? '' : 's'} = ${coresMax}`,
      value: `${coresMax}`,
    },
    { what: 'spark.default.parallelism', formula: `2 x ${coresMax} cores = ${parallelism}`, value: `${parallelism}` },
    ...workers.map(workerPortDerivation),
  ];
  const bound = machine.facts.nodes > 1;
  const memory = memoryPlan(
    machine,
    onNodes(
      sizing.executors.map((e) => e.share.node),
      executorCommitments(sizing),
      bound ? 'bind' : 'none',
    ),
  );
  return {
    kind: 'spark-standalone',
    machine,
    tuning: planTuning('spark', machine),
    memory,
    options: o,
    sizing,
    workers,
    bound,
    coresMax,
    parallelism,
    derivations,
    notes: [...machine.notes, ...sizing.notes, ...noDiskNotes(workers, o)],
  };
}
