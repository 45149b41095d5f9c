// PLAN.md parts of a spark-standalone plan.
import type { SparkStandaloneDecision } from '../../policy/plan/spark_standalone.js';
import type { PlanDoc } from './plan_md.js';
import { recipeCompare } from './spark_compare.js';

export function sparkStandaloneDoc(d: SparkStandaloneDecision): PlanDoc {
  const o = d.options;
  const units = d.workers.map((w) => `spark-worker-node${w.node}`).join(' ');
  const layout = [
    ['node', 'CPUs', 'physical cores', 'executor cores', 'executor memory', 'overhead', 'local dir', 'disk', 'NICs', 'ports'],
    ...d.workers.map((w) => {
      const e = d.sizing.executors.find((x) => x.share.node === w.node)!;
      return [`${w.node}`, w.cpuList, `${e.share.physicalCores}`, `${w.cores}`, `${d.sizing.memoryGiB}g`, `${d.sizing.overheadGiB}g`, w.localDir, w.localDisk ?? 'none on this node', w.nics.map((n) => n.name).join(',') || '-', `${w.port}/${w.webuiPort}`];
    }),
  ];
  const mounts = d.workers.filter((w) => w.localDisk !== null).map((w) => `/dev/${w.localDisk} (node ${w.node}) on ${o.dataDir}/node${w.node}`);
  return {
    workload: 'spark-standalone',
    intro: `One Spark worker per NUMA node (${d.workers.length} on this host), each a systemd unit whose executors run through a numactl java wrapper bound to the node's CPUs and memory, with shuffle and spill on the node's own NVMe. The executors use --membind: when a node runs out they are OOM-killed rather than spilling to remote memory, which is why executor memory, overhead and the worker must fit the node's budget (see "Memory per node"). -XX:+UseNUMA needs JDK 14 or later with G1 (JDK 8 honours it only with the Parallel GC); -XX:+AlwaysPreTouch makes executor start-up touch the whole heap (seconds per 10 GiB).`,
    layout,
    compare: recipeCompare(d.sizing, d.options.overheadPct),
    prepare: [
      ...(mounts.length > 0 ? [`Mount each node's NVMe on its own directory: ${mounts.join('; ')} (xfs, noatime; mkfs destroys what is on the disk: only for new disks). Check the node with \`cat /sys/class/nvme/nvmeN/device/numa_node\`.`] : []),
      `Create the directories for user ${o.user}: ${d.workers.map((w) => `${w.workerDir} ${w.localDir} ${w.logDir}`).join(' ')}.`,
      `Install numactl, and make sure ${o.javaHome}/bin/java is the real java (the wrapper calls it).`,
      'Stop the host\'s existing single Spark worker; it would compete with the new ones for cores and ports.',
    ],
    enable: [`\`systemctl enable --now ${units}\`, then run /usr/local/sbin/numakit-irq-affinity.sh if it is in the plan (after irqbalance is stopped), and check ${d.workers.length === 1 ? 'the worker' : `all ${d.workers.length} workers`} registered in the master UI with ${d.sizing.cores} cores each.`],
    rollback: [
      `\`systemctl disable --now ${units}\` and remove their unit files, then \`systemctl daemon-reload\`.`,
      `Restore the previous spark-defaults.conf and spark-env.sh (keep copies before installing), or drop spark.executorEnv.JAVA_HOME so executors use the plain java again.`,
      'Start the host\'s original worker.',
      'If things got worse, put back one change at a time (THP, numa_balancing, IRQ affinity, NVMe local dirs) to find which one.',
    ],
    checks: [
      '`numakit topo` on the host: the nodes, CPUs and devices this plan was made from are still what the host has.',
      '`numakit stat`: numa_miss and numa_foreign per node should fall and stay low while jobs run.',
      '`numakit doctor`: THP, numa_balancing and IRQ placement findings should be gone.',
      '`numastat -p $(pgrep -f CoarseGrainedExecutorBackend | head -1)`: nearly all of the executor\'s memory on its own node.',
      '`grep Cpus_allowed_list /proc/PID/status` for an executor: its node\'s CPUs only.',
      'GC logs and executor RSS: no OOM kills; raise --overhead (up to 20) if off-heap use grows.',
    ],
  };
}
