// Files of a spark-yarn plan: yarn-site.xml properties, container-executor.cfg,
// spark-defaults.conf and the submit script.
import type { SparkYarnDecision } from '../../policy/plan/spark_yarn.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { generatedBy, shellHeader } from './header.js';
import type { PlanDoc } from './plan_md.js';
import { recipeCompare } from './spark_compare.js';
import { EXECUTOR_JAVA_OPTS, renderSparkDefaults, renderSubmitScript, type SparkConf } from './spark_conf.js';

const W = 'spark-yarn';
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function renderYarnSite(comment: string[], props: readonly (readonly [string, string])[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<!-- ${comment.map(xml).join(' ')} -->`,
    '<configuration>',
    ...props.map(([k, v]) => `  <property>\n    <name>${xml(k)}</name>\n    <value>${xml(v)}</value>\n  </property>`),
    '</configuration>',
    '',
  ].join('\n');
}

function yarnProps(d: SparkYarnDecision): [string, string][] {
  const sizes: [string, string][] = [
    ['yarn.nodemanager.resource.memory-mb', `${d.totalMb}`],
    ['yarn.nodemanager.resource.cpu-vcores', `${d.totalVcores}`],
  ];
  if (!d.numaAware) return sizes;
  return [
    ...sizes,
    ['yarn.nodemanager.container-executor.class', 'org.apache.hadoop.yarn.server.nodemanager.LinuxContainerExecutor'],
    ['yarn.nodemanager.linux-container-executor.group', d.options.group],
    ['yarn.nodemanager.numa-awareness.enabled', 'true'],
    ['yarn.nodemanager.numa-awareness.read-topology', 'false'],
    ['yarn.nodemanager.numa-awareness.numactl.cmd', '/usr/bin/numactl'],
    ['yarn.nodemanager.numa-awareness.node-ids', d.nodes.map((n) => n.node).join(',')],
    ...d.nodes.flatMap((n): [string, string][] => [
      [`yarn.nodemanager.numa-awareness.${n.node}.memory`, `${n.memoryMb}`],
      [`yarn.nodemanager.numa-awareness.${n.node}.cpus`, `${n.vcores}`],
    ]),
  ];
}

export function sparkYarnConf(d: SparkYarnDecision): SparkConf {
  const s = d.sizing;
  const am = d.am;
  return [
    ['spark.submit.deployMode', am.mode],
    [am.memoryKey, `${am.heapMb}m`],
    [am.overheadKey, `${am.overheadMb}m`],
    [am.coresKey, `${am.cores}`],
    ['spark.executor.instances', `${d.instances}`],
    ['spark.executor.cores', `${s.cores}`],
    ['spark.executor.memory', `${s.memoryGiB}g`],
    ['spark.executor.memoryOverhead', `${s.overheadGiB}g`],
    ['spark.default.parallelism', `${d.parallelism}`],
    ['spark.executor.extraJavaOptions', EXECUTOR_JAVA_OPTS],
    ['spark.dynamicAllocation.enabled', 'false'],
  ];
}

export function renderSparkYarn(d: SparkYarnDecision): PlanFile[] {
  const o = d.options;
  const label = d.machine.label;
  const conf = sparkYarnConf(d);
  return [
    {
      path: `${o.hadoopConf}/yarn-site.numakit.xml`,
      content: renderYarnSite(generatedBy(W, label), yarnProps(d)),
      mode: 0o644,
      about: d.numaAware
        ? 'NodeManager NUMA awareness and LinuxContainerExecutor properties: merge into yarn-site.xml'
        : 'NodeManager memory and vcores: merge into yarn-site.xml',
    },
    ...(d.numaAware ? [containerExecutorCfg(d)] : []),
    {
      path: `${o.sparkHome}/conf/spark-defaults.conf`,
      content: renderSparkDefaults(generatedBy(W, label), conf),
      mode: 0o644,
      about: 'executor size and NUMA JVM options',
    },
    {
      path: '/usr/local/bin/spark-submit-numa',
      content: renderSubmitScript(
        shellHeader(W, label, [
          "Submits an application to YARN with this plan's executor size.",
          'usage: spark-submit-numa APP_JAR MAIN_CLASS [APP_ARGS...]',
        ]),
        o.sparkHome,
        'yarn',
        conf,
      ),
      mode: 0o755,
      about: "spark-submit --master yarn with the plan's confs",
    },
  ];
}

/** container-executor.cfg: NUMA awareness needs the LinuxContainerExecutor, which reads it. */
function containerExecutorCfg(d: SparkYarnDecision): PlanFile {
  const cfg = [
    ...generatedBy(W, d.machine.label).map((l) => `# ${l}`),
    `yarn.nodemanager.linux-container-executor.group=${d.options.group}`,
    'banned.users=hdfs,yarn,mapred,bin',
    'min.user.id=1000',
    'allowed.system.users=',
    '',
  ].join('\n');
  return {
    path: `${d.options.hadoopConf}/container-executor.cfg`,
    content: cfg,
    mode: 0o400,
    about: 'container-executor settings (root-owned, read-only)',
  };
}

/** A row per node (its executor container and room for the ApplicationMaster), then the NodeManager's totals. */
function yarnLayout(d: SparkYarnDecision): string[][] {
  return [
    ['node', 'memory for containers (MB)', 'vcores', 'executors', 'ApplicationMaster'],
    ...d.nodes.map((n) => [
      `${n.node}`,
      `${n.memoryMb} = ${d.containerMb} + ${d.am.containerMb}`,
      `${n.vcores} = ${d.sizing.cores} + ${d.am.cores}`,
      '1',
      'room for it',
    ]),
    [
      'NodeManager',
      `${d.totalMb} = ${d.containerMb} x ${d.nodes.length} + ${d.am.containerMb}`,
      `${d.totalVcores}`,
      `${d.nodes.length}`,
      '1',
    ],
  ];
}

/** The common recipe against this plan, with YARN's line: the recipe leaves no room for the ApplicationMaster. */
function yarnCompare(d: SparkYarnDecision): ReturnType<typeof recipeCompare> {
  const r = d.sizing.recipe;
  const recipeMb = (r.memoryGiB + r.overheadGiB) * 1024 * d.nodes.length;
  const totalMb = d.nodes.length * d.sizing.recipe.node.memGiB * 1024;
  return recipeCompare(d.sizing, {
    overheadPct: d.options.overheadPct,
    oneNode: !d.numaAware,
    extra: [
      [
        'yarn.nodemanager.resource.memory-mb',
        `(${r.memoryGiB} + ${r.overheadGiB}) x 1024 x ${d.nodes.length} = ${recipeMb} of ${Math.round(totalMb)} MB, no room for the ApplicationMaster`,
        `${d.containerMb} x ${d.nodes.length} + ${d.am.containerMb} (ApplicationMaster) = ${d.totalMb} of ${Math.round(totalMb)} MB`,
      ],
    ],
  });
}

export function sparkYarnDoc(d: SparkYarnDecision): PlanDoc {
  return {
    compare: yarnCompare(d),
    workload: W,
    intro: d.numaAware
      ? `The NodeManager places each container on one NUMA node itself (Hadoop 3.1 or later: yarn.nodemanager.numa-awareness.*) and launches it through numactl with that node's CPUs and memory. The topology is written out from this machine (read-topology false), one executor container of ${d.containerMb} MB and ${d.sizing.cores} vcores per node, and room on every node for the application's ApplicationMaster container (${d.am.containerMb} MB, ${d.am.mode} mode), which the NodeManager may place on any node. NUMA awareness works only with the LinuxContainerExecutor.`
      : `This machine has one NUMA node: every CPU reaches all memory at the same distance, so the NodeManager's NUMA awareness is left off (it would bind every container to the whole machine, and it needs the LinuxContainerExecutor). The plan sizes the NodeManager's memory and vcores for one executor container of ${d.containerMb} MB and ${d.sizing.cores} vcores plus the application's ApplicationMaster container (${d.am.containerMb} MB, ${d.am.mode} mode), within the machine's budget.`,
    layout: yarnLayout(d),
    prepare: [
      `Merge the properties of ${d.options.hadoopConf}/yarn-site.numakit.xml into yarn-site.xml on this NodeManager.`,
      ...(d.numaAware
        ? [
            'container-executor must be root-owned, group ' +
              d.options.group +
              ', mode 6050, and container-executor.cfg root-owned and not writable by others, or the NodeManager refuses to start.',
          ]
        : []),
      `Raise yarn.scheduler.maximum-allocation-mb on the ResourceManager to at least ${d.containerMb}; yarn.scheduler.minimum-allocation-mb must be ${d.options.minAllocationMb}, the step the plan rounds containers to.`,
    ],
    enable: [
      d.numaAware
        ? 'Restart the NodeManager on the one host; its log must say "NUMA resources allocation is enabled".'
        : `Restart the NodeManager on the one host; the ResourceManager UI must show it with ${d.totalMb} MB and ${d.totalVcores} vcores.`,
    ],
    rollback: [
      d.numaAware
        ? 'Set yarn.nodemanager.numa-awareness.enabled to false (and the previous container executor class if it was different) and restart the NodeManager.'
        : 'Put back the previous yarn.nodemanager.resource.memory-mb and cpu-vcores and restart the NodeManager.',
      'Restore the previous spark-defaults.conf.',
    ],
    checks: d.numaAware
      ? [
          'NodeManager log: `grep "NUMA node" ... | grep CONTAINER_ID` shows the node each container got.',
          '`numastat -p PID` of an executor: memory on its node.',
          `\`numakit stat\` and \`${d.tuning.doctor}\`.`,
        ]
      : [
          `\`${d.tuning.doctor}\`: no THP finding.`,
          'GC logs and executor RSS: no OOM kills; raise --overhead (up to 20) if off-heap use grows.',
        ],
  };
}
