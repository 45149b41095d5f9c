// PLAN.md parts of a spark-standalone plan.
import type { SparkStandaloneDecision } from '../../policy/plan/spark_standalone.js';
import type { PlanDoc } from './plan_md.js';
import { recipeCompare } from './spark_compare.js';
import { activeCheck, policyCheck, threadsCheck } from './checks.js';
import { disableNow, enableNow } from './blocks.js';

/** Each worker active and, when bound, its JVM (started through the java wrapper) on its node's CPUs and memory. */
function workerChecks(d: SparkStandaloneDecision): string[] {
  return d.workers.flatMap((w) => {
    const u = `spark-worker-node${w.node}`;
    return d.bound
      ? [activeCheck(u), threadsCheck(u, w.cpuList), policyCheck(u, 'bind', `${w.node}`)]
      : [activeCheck(u)];
  });
}

const JDK =
  '-XX:+UseNUMA needs JDK 14 or later with G1 (JDK 8 honours it only with the Parallel GC); -XX:+AlwaysPreTouch makes executor start-up touch the whole heap (seconds per 10 GiB).';
const BOUND_INTRO = (n: number) =>
  `One Spark worker per NUMA node (${n} on this host), each a systemd unit whose executors run through a numactl java wrapper bound to the node's CPUs and memory, with shuffle and spill on the node's own NVMe. The executors use --membind: when a node runs out they are OOM-killed rather than spilling to remote memory, which is why executor memory, overhead and the worker must fit the node's budget (see "Memory per node"). ${JDK}`;
const ONE_NODE_INTRO = `This machine has one NUMA node: every CPU reaches all memory at the same distance, so nothing is bound (no numactl wrapper, no IRQ pinning). One Spark worker as a systemd unit gets the node's cores and memory. The memory arithmetic still holds: when the machine runs out, the kernel reclaims the page cache and then OOM-kills an executor, so executor memory, overhead and the worker must fit MemTotal minus the reserve (see "Memory per node"). ${JDK}`;

/** A row per worker: its node, CPUs, executor size, local dir and disk, NICs and ports. */
function workerLayout(d: SparkStandaloneDecision): string[][] {
  return [
    [
      'node',
      'CPUs',
      'physical cores',
      'executor cores',
      'executor memory',
      'overhead',
      'local dir',
      'disk',
      'NICs',
      'ports',
    ],
    ...d.workers.map((w) => {
      const e = d.sizing.executors.find((x) => x.share.node === w.node)!;
      return [
        `${w.node}`,
        w.cpuList,
        `${e.share.physicalCores}`,
        `${w.cores}`,
        `${d.sizing.memoryGiB}g`,
        `${d.sizing.overheadGiB}g`,
        w.localDir,
        w.localDisk ?? 'none on this node',
        w.nics.map((n) => n.name).join(',') || '-',
        `${w.port}/${w.webuiPort}`,
      ];
    }),
  ];
}

/** Before you start: each node's NVMe mounted, the directories made, numactl, the old worker stopped. */
function prepareSteps(d: SparkStandaloneDecision): string[] {
  const o = d.options;
  const mounts = d.workers
    .filter((w) => w.localDisk !== null)
    .map((w) => `/dev/${w.localDisk} (node ${w.node}) on ${o.dataDir}/node${w.node}`);
  return [
    ...(mounts.length > 0
      ? [
          `Mount each node's NVMe on its own directory: ${mounts.join('; ')} (xfs, noatime; mkfs destroys what is on the disk: only for new disks). Check the node with \`cat /sys/class/nvme/nvmeN/device/numa_node\`.`,
        ]
      : []),
    `Create the directories for user ${o.user}: ${d.workers.map((w) => `${w.workerDir} ${w.localDir} ${w.logDir}`).join(' ')}.`,
    ...(d.bound
      ? [`Install numactl, and make sure ${o.javaHome}/bin/java is the real java (the wrapper calls it).`]
      : []),
    `Stop the host's existing Spark worker; it would compete with the new ${d.workers.length === 1 ? 'one' : 'ones'} for cores and ports.`,
  ];
}

export function sparkStandaloneDoc(d: SparkStandaloneDecision): PlanDoc {
  const units = d.workers.map((w) => `spark-worker-node${w.node}`).join(' ');
  const commands = {
    start: [enableNow(units)],
    verify: workerChecks(d),
    stop: [disableNow(units)],
  };
  return {
    ...commands,
    workload: 'spark-standalone',
    intro: d.bound ? BOUND_INTRO(d.workers.length) : ONE_NODE_INTRO,
    layout: workerLayout(d),
    compare: recipeCompare(d.sizing, { overheadPct: d.options.overheadPct, oneNode: !d.bound }),
    prepare: prepareSteps(d),
    enable: [
      d.bound
        ? `\`${enableNow(units)}\`, then run /usr/local/sbin/numakit-irq-affinity.sh if it is in the plan (after irqbalance is stopped), and check ${d.workers.length === 1 ? 'the worker' : `all ${d.workers.length} workers`} registered in the master UI with ${d.sizing.cores} cores each.`
        : `\`${enableNow(units)}\`, and check the worker registered in the master UI with ${d.sizing.cores} cores.`,
    ],
    rollback: [
      "Start the host's original worker.",
      `If things got worse, put back one change at a time (${d.bound ? 'THP, numa_balancing, IRQ affinity, NVMe local dirs' : 'THP, the local dirs'}) to find which one.`,
    ],
    checks: [
      '`numakit topo` on the host: the nodes, CPUs and devices this plan was made from are still what the host has.',
      ...(d.bound
        ? [
            '`numakit stat`: numa_miss and numa_foreign per node should fall and stay low while jobs run.',
            `\`${d.tuning.doctor}\`: THP, numa_balancing and IRQ placement findings should be gone.`,
            "`numastat -p $(pgrep -f CoarseGrainedExecutorBackend | head -1)`: nearly all of the executor's memory on its own node.",
            "`grep Cpus_allowed_list /proc/PID/status` for an executor: its node's CPUs only.",
          ]
        : [`\`${d.tuning.doctor}\`: no THP finding.`]),
      'GC logs and executor RSS: no OOM kills; raise --overhead (up to 20) if off-heap use grows.',
    ],
  };
}
