// Files of a spark-standalone plan: the java wrapper, one worker unit per node, spark-env.sh,
// spark-defaults.conf, the IRQ script and a submit script. On one NUMA node (d.bound false) the
// worker is not bound: no wrapper, no JAVA_HOME override.
import {
  WORKER_DAEMON_GIB,
  type SparkStandaloneDecision,
  type SparkWorker,
} from '../../policy/plan/spark_standalone.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { generatedBy, shellHeader } from './header.js';
import { renderIrqScript } from './irq_script.js';
import { renderJavaWrapper } from './java_wrapper.js';
import {
  DRIVER_JAVA_OPTS,
  EXECUTOR_JAVA_OPTS,
  renderSparkDefaults,
  renderSubmitScript,
  type SparkConf,
} from './spark_conf.js';
import { renderUnit } from './systemd.js';

const W = 'spark-standalone';

function workerUnit(d: SparkStandaloneDecision, w: SparkWorker): PlanFile {
  const o = d.options;
  const content = renderUnit(generatedBy(W, d.machine.label), [
    {
      name: 'Unit',
      entries: [
        [
          'Description',
          d.bound ? `Spark worker bound to NUMA node ${w.node}` : 'Spark worker (one NUMA node: not bound)',
        ],
        ['Wants', 'network-online.target'],
        ['After', 'network-online.target'],
        ['RequiresMountsFor', `${w.localDir} ${w.workerDir}`],
      ],
    },
    {
      name: 'Service',
      entries: [
        ['User', o.user],
        ...(d.bound ? [['Environment', `SPARK_NUMA_NODE=${w.node}`] as const] : []),
        ['Environment', `SPARK_DAEMON_MEMORY=${WORKER_DAEMON_GIB}g`],
        ...(d.bound
          ? [
              ['Environment', `SPARK_CPU_LIST=${w.cpuList}`] as const,
              ['Environment', `JAVA_HOME=${o.wrapperHome}`] as const,
            ]
          : []),
        ['Environment', `SPARK_WORKER_DIR=${w.workerDir}`],
        ['Environment', `SPARK_LOCAL_DIRS=${w.localDir}`],
        ['Environment', `SPARK_LOG_DIR=${w.logDir}`],
        [
          'ExecStart',
          `${o.sparkHome}/bin/spark-class org.apache.spark.deploy.worker.Worker --cores ${w.cores} --memory ${w.memoryGiB}g --work-dir ${w.workerDir} --port ${w.port} --webui-port ${w.webuiPort} ${o.master}`,
        ],
        ['Restart', 'on-failure'],
        ['RestartSec', '10'],
        // The worker's JVM stopped by SIGTERM exits 143: a clean stop, not a failure.
        ['SuccessExitStatus', '143'],
        ['LimitNOFILE', '100000'],
      ],
    },
    { name: 'Install', entries: [['WantedBy', 'multi-user.target']] },
  ]);
  return {
    path: `/etc/systemd/system/spark-worker-node${w.node}.service`,
    content,
    mode: 0o644,
    about: `worker for node ${w.node}: ${w.cores} cores, ${w.memoryGiB}g, ports ${w.port}/${w.webuiPort}, local dir ${w.localDir}`,
  };
}

function sparkEnv(d: SparkStandaloneDecision): PlanFile {
  const content = [
    '# shellcheck shell=bash',
    ...generatedBy(W, d.machine.label).map((l) => `# ${l}`),
    '# Per-worker values (SPARK_WORKER_CORES/MEMORY, SPARK_LOCAL_DIRS, ports, the NUMA node) live in',
    "# the spark-worker-nodeN units. Do not set them here: this file is sourced after the unit's",
    '# environment and one value here would apply to every worker on the host.',
    '',
    'export SPARK_WORKER_OPTS="-Dspark.worker.cleanup.enabled=true"',
    '',
  ].join('\n');
  return {
    path: `${d.options.sparkHome}/conf/spark-env.sh`,
    content,
    mode: 0o644,
    about: 'settings shared by the workers (per-worker values are in the units)',
  };
}

export function sparkStandaloneConf(d: SparkStandaloneDecision): SparkConf {
  const s = d.sizing;
  return [
    ['spark.executor.cores', `${s.cores}`],
    ['spark.executor.memory', `${s.memoryGiB}g`],
    ['spark.executor.memoryOverhead', `${s.overheadGiB}g`],
    ['spark.cores.max', `${d.coresMax}`],
    ['spark.default.parallelism', `${d.parallelism}`],
    ['spark.sql.shuffle.partitions', `${d.parallelism}`],
    ['spark.executor.extraJavaOptions', EXECUTOR_JAVA_OPTS],
    ['spark.driver.extraJavaOptions', DRIVER_JAVA_OPTS],
    ...(d.bound ? [['spark.executorEnv.JAVA_HOME', d.options.wrapperHome] as const] : []),
    ['spark.shuffle.service.enabled', 'false'],
    ['spark.shuffle.io.preferDirectBufs', 'true'],
    ['spark.serializer', 'org.apache.spark.serializer.KryoSerializer'],
    ['spark.network.timeout', '800s'],
  ];
}

export function renderSparkStandalone(d: SparkStandaloneDecision): PlanFile[] {
  const label = d.machine.label;
  const conf = sparkStandaloneConf(d);
  const files: PlanFile[] = [
    ...(d.bound ? [javaWrapper(d)] : []),
    ...d.workers.map((w) => workerUnit(d, w)),
    sparkEnv(d),
    sparkDefaultsFile(d, conf),
  ];
  // One node: every CPU is on the NIC's node already (the table's IRQ placement is moot there).
  const pins = d.bound
    ? d.workers.flatMap((w) => w.nics.map((n) => ({ name: n.name, node: w.node, cpuList: w.cpuList })))
    : [];
  if (pins.length > 0)
    files.push({
      path: '/usr/local/sbin/numakit-irq-affinity.sh',
      content: renderIrqScript(shellHeader(W, label, ["Pins each NIC's IRQs to the CPUs of its own NUMA node."]), pins),
      mode: 0o755,
      about: `IRQs of ${pins.map((p) => p.name).join(', ')} to their nodes' CPUs`,
    });
  files.push(submitScript(d, conf));
  return files;
}

/** The java the executors run through: numactl binding to the worker's SPARK_NUMA_NODE. */
function javaWrapper(d: SparkStandaloneDecision): PlanFile {
  const o = d.options;
  return {
    path: `${o.wrapperHome}/bin/java`,
    content: renderJavaWrapper(
      shellHeader(W, d.machine.label, ['numactl java wrapper: binds a JVM to one NUMA node.']),
      `${o.javaHome}/bin/java`,
    ),
    mode: 0o755,
    about: 'java wrapper: numactl CPU and memory binding to SPARK_NUMA_NODE',
  };
}

type Conf = ReturnType<typeof sparkStandaloneConf>;

/** spark-defaults.conf for the applications: executor size, GC and the NUMA JVM options. */
function sparkDefaultsFile(d: SparkStandaloneDecision, conf: Conf): PlanFile {
  return {
    path: `${d.options.sparkHome}/conf/spark-defaults.conf`,
    content: renderSparkDefaults(
      [
        ...generatedBy(W, d.machine.label),
        ...(d.bound
          ? [
              "spark.local.dir is not set: each worker's SPARK_LOCAL_DIRS (its own node's NVMe) overrides it.",
              'spark.shuffle.service.enabled is false: two workers on one host would both bind port 7337.',
            ]
          : ["spark.local.dir is not set: the worker's SPARK_LOCAL_DIRS overrides it."]),
      ],
      conf,
    ),
    mode: 0o644,
    about: 'executor size, GC and NUMA JVM options for applications',
  };
}

/** Confs left out of spark-submit-numa's command line (spark-defaults.conf sets them). */
const NOT_SUBMITTED = [
  'spark.serializer',
  'spark.network.timeout',
  'spark.executorEnv.JAVA_HOME',
  'spark.shuffle.service.enabled',
];

/** spark-submit-numa: spark-submit with this plan's executor confs. */
function submitScript(d: SparkStandaloneDecision, conf: Conf): PlanFile {
  const o = d.options;
  return {
    path: '/usr/local/bin/spark-submit-numa',
    content: renderSubmitScript(
      shellHeader(W, d.machine.label, [
        "Submits an application with this plan's executor size.",
        'usage: spark-submit-numa APP_JAR MAIN_CLASS [APP_ARGS...]',
      ]),
      o.sparkHome,
      o.master,
      conf.filter(([k]) => !NOT_SUBMITTED.includes(k)),
    ),
    mode: 0o755,
    about: "spark-submit with the plan's executor confs",
  };
}
