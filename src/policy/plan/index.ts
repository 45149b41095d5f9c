// The planners: workload name -> (machine, raw options) -> decision, a union on `kind`.
import { UsageError } from '../../model/errors.js';
import {
  checkAllowed,
  masterUrl,
  sparkCommon,
  sparkSizingOptions,
  str,
  SPARK_COMMON_KEYS,
  SPARK_SIZING_KEYS,
  type RawOptions,
} from './options.js';
import { intIn, safeCommand, safeName, safePath } from './validate.js';
import { parseSize } from '../../model/size.js';
import { planSparkStandalone, type SparkStandaloneDecision } from './spark_standalone.js';
import { planDb, type DbDecision } from './db.js';
import { DB_KEYS, dbOptions } from './db_options.js';
import { planJvm, type JvmDecision } from './jvm.js';
import { planRedis, type RedisDecision } from './redis.js';
import { planService, type ServiceDecision } from './service.js';
import { planSparkK8s, type SparkK8sDecision } from './spark_k8s.js';
import { planSparkYarn, type SparkYarnDecision } from './spark_yarn.js';
import { sparkYarnOptions } from './spark_yarn_options.js';
import { limitFile, num } from './machine.js';
import type { Derivation, MachineShare } from './types.js';

export type PlanDecision =
  | SparkStandaloneDecision
  | SparkYarnDecision
  | SparkK8sDecision
  | DbDecision
  | RedisDecision
  | JvmDecision
  | ServiceDecision;

interface Planner {
  readonly summary: string;
  readonly keys: readonly string[];
  readonly plan: (m: MachineShare, raw: RawOptions) => PlanDecision;
}

export const PLANNERS: Record<string, Planner> = {
  'spark-standalone': {
    summary: 'one Spark worker per node: units, java wrapper, spark-env.sh, spark-defaults.conf, IRQs, submit script',
    keys: [...SPARK_COMMON_KEYS, 'master', 'wrapper-home'],
    plan: (m, raw) =>
      planSparkStandalone(m, {
        ...sparkSizingOptions(raw),
        ...sparkCommon(raw),
        master: masterUrl(raw, 'spark://master:7077'),
        wrapperHome: safePath(str(raw, 'wrapper-home', '/opt/numa-java'), '--wrapper-home'),
      }),
  },
};

PLANNERS['spark-yarn'] = {
  summary: 'yarn-site.xml NodeManager NUMA awareness + LinuxContainerExecutor, container-executor.cfg, Spark confs',
  keys: [...SPARK_SIZING_KEYS, 'spark-home', 'hadoop-conf', 'group', 'deploy-mode', 'am-memory', 'min-allocation'],
  plan: (m, raw) => planSparkYarn(m, sparkYarnOptions(raw)),
};

PLANNERS['spark-k8s'] = {
  summary:
    'kubelet (CPU Manager static, Topology Manager single-numa-node, Memory Manager Static), pod template, local PVs, Spark confs',
  keys: [...SPARK_SIZING_KEYS, 'spark-home', 'data-dir', 'k8s-node', 'image', 'namespace', 'local-size'],
  plan: (m, raw) => {
    if (typeof raw['k8s-node'] !== 'string')
      throw new UsageError(
        'plan spark-k8s: --k8s-node NAME is required (the Kubernetes node name of this machine, for its local PVs)',
      );
    return planSparkK8s(m, {
      ...sparkSizingOptions(raw),
      sparkHome: safePath(str(raw, 'spark-home', '/opt/spark'), '--spark-home'),
      dataDir: safePath(str(raw, 'data-dir', '/data'), '--data-dir'),
      k8sNode: safeName(raw['k8s-node'], '--k8s-node'),
      image: safeImage(str(raw, 'image', 'apache/spark:3.5.1')),
      namespace: safeName(str(raw, 'namespace', 'spark'), '--namespace'),
      localSizeGiB: Math.floor(
        parseSize(str(raw, 'local-size', '500g'), '--local-size', { positive: true }) / 1024 ** 3,
      ),
    });
  },
};

function safeImage(v: string): string {
  if (!/^[a-z0-9][a-z0-9._/:@-]*$/.test(v))
    throw new UsageError(
      `--image: '${v}' refused: a container image reference (registry/name:tag) without spaces or shell metacharacters`,
    );
  return v;
}

function dbPlanner(engine: 'mysql' | 'postgres'): Planner {
  return {
    summary: `${engine} drop-in for the distribution's unit: bind, preferred or interleave from the ${engine === 'mysql' ? 'buffer pool' : 'shared_buffers'} size; server settings; huge pages`,
    keys: DB_KEYS[engine],
    plan: (m, raw) => planDb(m, dbOptions(engine, m, raw)),
  };
}

PLANNERS['mysql'] = dbPlanner('mysql');
PLANNERS['postgres'] = dbPlanner('postgres');

const optInt = (raw: RawOptions, key: string, lo: number, hi: number) =>
  typeof raw[key] === 'string' ? intIn(raw[key] as string, `--${key}`, lo, hi) : undefined;

PLANNERS['redis'] = {
  summary: 'one Redis per node (or --per-core, --per-l3) pinned with taskset + numactl --membind, own ports and units',
  keys: ['per-core', 'per-l3', 'instances', 'base-port', 'user'],
  plan: (m, raw) => {
    const modes = (['per-core', 'per-l3', 'instances'] as const).filter(
      (k) => raw[k] !== undefined && raw[k] !== false,
    );
    if (modes.length > 1) throw new UsageError(`plan redis: --${modes[0]} and --${modes[1]} cannot be used together`);
    return planRedis(m, {
      perCore: raw['per-core'] === true,
      perL3: raw['per-l3'] === true,
      instances: optInt(raw, 'instances', 1, 4096),
      basePort: intIn(str(raw, 'base-port', '6379'), '--base-port', 1024, 65535),
      user: safeName(str(raw, 'user', 'redis'), '--user'),
    });
  },
};

function jvmPlanner(flavour: 'jvm' | 'elasticsearch'): Planner {
  return {
    summary:
      flavour === 'jvm'
        ? 'a JVM (--heap, --jar): one instance per node when the heap fits, else interleaved; UseNUMA, AlwaysPreTouch'
        : 'Elasticsearch (--heap): one node-bound instance per NUMA node, or one interleaved',
    keys:
      flavour === 'jvm'
        ? ['heap', 'instances', 'name', 'java-home', 'jar', 'user']
        : ['heap', 'instances', 'user', 'data-dir'],
    plan: (m, raw) => {
      if (typeof raw['heap'] !== 'string') throw new UsageError(`plan ${flavour}: --heap SIZE is required (e.g. 31g)`);
      if (flavour === 'jvm' && typeof raw['jar'] !== 'string') throw new UsageError('plan jvm: --jar PATH is required');
      return planJvm(m, {
        flavour,
        heapBytes: parseSize(raw['heap'], '--heap', { positive: true }),
        instances: optInt(raw, 'instances', 1, 4096),
        name: safeName(str(raw, 'name', flavour === 'jvm' ? 'app' : 'elasticsearch'), '--name'),
        java: `${safePath(str(raw, 'java-home', '/usr/lib/jvm/default-java'), '--java-home')}/bin/java`,
        jar: flavour === 'jvm' ? safePath(raw['jar'] as string, '--jar') : null,
        user: safeName(str(raw, 'user', flavour === 'jvm' ? 'app' : 'elasticsearch'), '--user'),
        dataDir: safePath(str(raw, 'data-dir', '/data'), '--data-dir'),
      });
    },
  };
}

PLANNERS['jvm'] = jvmPlanner('jvm');
PLANNERS['elasticsearch'] = jvmPlanner('elasticsearch');

PLANNERS['service'] = {
  summary: 'any program (--name N --exec CMD) as a template unit bound per node (--per-node) or to one node',
  keys: ['name', 'exec', 'per-node', 'node', 'systemd-version', 'user', 'bandwidth-bound'],
  plan: (m, raw) => {
    if (typeof raw['name'] !== 'string' || typeof raw['exec'] !== 'string')
      throw new UsageError("plan service: --name NAME and --exec 'PROGRAM ARGS' are required");
    if (raw['per-node'] === true && raw['node'] !== undefined)
      throw new UsageError('plan service: --per-node and --node cannot be used together');
    return planService(m, {
      name: safeName(raw['name'], '--name'),
      exec: safeCommand(raw['exec'], '--exec'),
      perNode: raw['per-node'] === true,
      node: optInt(raw, 'node', 0, 4095),
      systemdVersion: intIn(str(raw, 'systemd-version', '252'), '--systemd-version', 200, 999),
      user: typeof raw['user'] === 'string' ? safeName(raw['user'], '--user') : null,
      bandwidthBound: raw['bandwidth-bound'] === true,
    });
  },
};

export function planWorkload(workload: string, machine: MachineShare, raw: RawOptions): PlanDecision {
  const p = PLANNERS[workload];
  if (p === undefined)
    throw new UsageError(`plan: unknown workload '${workload}' (one of: ${Object.keys(PLANNERS).join(', ')})`);
  checkAllowed(workload, raw, p.keys);
  const d = p.plan(machine, raw);
  // Sized inside a cpuset: the first number says from which CPUs and memory nodes.
  const first = machine.restriction === null ? [] : [machine.restriction];
  const limit = memoryMaxCheck(d, machine);
  return first.length === 0 && limit === null
    ? d
    : {
        ...d,
        derivations: [...first, ...d.derivations, ...(limit?.derivations ?? [])],
        notes: [...d.notes, ...(limit?.notes ?? [])],
      };
}

/**
 * The plan's whole commitment against the memory.max (v1: memory.limit_in_bytes) of numakit's cgroup (a container's limit):
 * planners size per node, so the total is checked here and said, not refused: the plan's services
 * may run outside this cgroup.
 */
function memoryMaxCheck(d: PlanDecision, m: MachineShare): { derivations: Derivation[]; notes: string[] } | null {
  const max = m.memoryMax;
  if (max === null) return null;
  const file = limitFile(max.path);
  const where = `${file} of cgroup ${max.cgroup} (/${max.path}) = ${num(max.gib)} GiB`;
  if (d.memory.unknown !== null)
    return {
      derivations: [],
      notes: [
        `numakit runs in cgroup ${max.cgroup} with a ${file} of ${num(max.gib)} GiB; what this plan's services use is not known here, so keep it within that if they run in the same cgroup.`,
      ],
    };
  const committed = d.memory.nodes.reduce((a, n) => a + n.committedGiB, 0);
  const over = committed - max.gib;
  return {
    derivations: [
      {
        what: "committed in all, against this cgroup's limit",
        formula: `${d.memory.nodes.map((n) => num(n.committedGiB)).join(' + ')} = ${num(committed)} GiB; ${where}`,
        value: over > 1e-9 ? `over by ${num(over)} GiB` : 'within it',
      },
    ],
    notes:
      over > 1e-9
        ? [
            `The plan commits ${num(committed)} GiB in all, more than the ${num(max.gib)} GiB ${file} of cgroup ${max.cgroup} that numakit runs in: if these services run in that cgroup (this container), the kernel OOM-kills inside it before they reach their sizes; give them smaller sizes or the cgroup a larger limit.`,
          ]
        : [],
  };
}
