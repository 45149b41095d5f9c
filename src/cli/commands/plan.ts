// numakit plan WORKLOAD [options] [--out DIR]
import { existsSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import { replaceDir } from '../../actuate/atomic_write.js';
import { makeDirs } from '../../runtime/make_dirs.js';
import { dirname, join, resolve } from 'node:path';
import { readPlanInput } from '../../discover/plan_input.js';
import { NumakitError, UsageError } from '../../model/errors.js';
import { machineShare } from '../../policy/plan/machine.js';
import { DISTRO_NAMES } from '../../policy/plan/distro.js';
import { planWorkload, PLANNERS } from '../../policy/plan/index.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { renderPlan, renderPlanText } from '../../render/plan/index.js';
import type { ParsedOptions, CommandModule } from '../options.js';

const SPARK = 'spark-standalone, spark-yarn, spark-k8s';
const DB = 'mysql, postgres';
const JVM = 'jvm, elasticsearch';
const OPTIONS = {
  out: {
    type: 'string',
    value: 'DIR',
    complete: 'dir',
    help: 'write the files under DIR (by install path) and DIR/PLAN.md; DIR must\nnot exist or be empty',
  },
  force: { type: 'boolean', help: 'with --out: replace an earlier plan there (a directory holding PLAN.md)' },
  json: {
    type: 'boolean',
    help: 'the plan as JSON (schemaVersion 1, docs/json.md): derivations, notes and\nevery file with its path, mode and content',
  },
  'cores-fraction': {
    type: 'string',
    value: 'F',
    group: SPARK,
    help: 'executor cores = physical cores of the node x F (default 0.8)',
  },
  'memory-fraction': {
    type: 'string',
    value: 'F',
    group: SPARK,
    help: "executor memory = node memory x F when that fits the node's budget (default:\nthe largest heap with its overhead and daemons within the budget)",
  },
  overhead: {
    type: 'string',
    value: 'PCT',
    group: SPARK,
    help: 'spark.executor.memoryOverhead, percent of executor memory, 10..20 (default 15)',
  },
  hosts: {
    type: 'string',
    value: 'N',
    group: SPARK,
    help: 'hosts of this shape in the cluster, for cluster totals (default 1)',
  },
  'spark-home': { type: 'string', value: 'DIR', group: SPARK, help: 'default /opt/spark' },
  'java-home': { type: 'string', value: 'DIR', group: SPARK, help: 'default /usr/lib/jvm/default-java (jvm too)' },
  'data-dir': {
    type: 'string',
    value: 'DIR',
    group: SPARK,
    help: 'NVMe mounts DIR/nodeN (default /data; elasticsearch too)',
  },
  master: {
    type: 'string',
    value: 'URL',
    group: SPARK,
    help: 'spark-standalone: the master (default spark://master:7077)',
  },
  'wrapper-home': {
    type: 'string',
    value: 'DIR',
    group: SPARK,
    help: 'where the numactl java wrapper goes (default /opt/numa-java)',
  },
  'hadoop-conf': { type: 'string', value: 'DIR', group: SPARK, help: 'spark-yarn: (default /etc/hadoop/conf)' },
  group: { type: 'string', value: 'NAME', group: SPARK, help: 'spark-yarn: the group (default hadoop)' },
  'deploy-mode': {
    type: 'string',
    value: 'MODE',
    choices: ['client', 'cluster'],
    group: SPARK,
    help: "spark-yarn: where the driver runs; the ApplicationMaster's container is\nsized for it (default client)",
  },
  'am-memory': {
    type: 'string',
    value: 'SIZE',
    group: SPARK,
    help: 'spark-yarn: the ApplicationMaster heap, spark.yarn.am.memory (client) or\nspark.driver.memory (cluster) (default 512m client, 1g cluster)',
  },
  'min-allocation': {
    type: 'string',
    value: 'MB',
    group: SPARK,
    help: 'spark-yarn: yarn.scheduler.minimum-allocation-mb, the step containers are\nrounded up to (default 1024)',
  },
  'k8s-node': {
    type: 'string',
    value: 'NAME',
    group: SPARK,
    help: "spark-k8s: this machine's Kubernetes node name (required)",
  },
  image: { type: 'string', value: 'REF', group: SPARK, help: 'spark-k8s: the image (default apache/spark:3.5.1)' },
  namespace: { type: 'string', value: 'NAME', group: SPARK, help: 'spark-k8s: the namespace (default spark)' },
  'local-size': { type: 'string', value: 'SIZE', group: SPARK, help: 'spark-k8s: local volume size (default 500g)' },
  'buffer-pool': {
    type: 'string',
    value: 'SIZE',
    group: DB,
    help: 'innodb_buffer_pool_size / shared_buffers (required): <= 60% of the node\nand pool + 10% within its budget -> bind, <= 85% -> preferred, larger ->\ninterleave; more than the machine can take -> refused',
  },
  node: {
    type: 'string',
    value: 'N',
    group: DB,
    help: 'the node to use (default: the one with the NVMe/NICs, then most memory;\nservice too)',
  },
  'systemd-version': {
    type: 'string',
    value: 'N',
    group: DB,
    help: 'below 243 the drop-in runs the server through numactl (default 252;\nservice too)',
  },
  exec: {
    type: 'string',
    value: "'CMD ARGS'",
    group: DB,
    help: 'the server command line (needed with systemd < 243 for postgres;\nrequired for service)',
  },
  name: {
    type: 'string',
    value: 'NAME',
    group: DB,
    help: "the server's unit when it is not the packages' own; jvm: the application\nname; service: the template unit NAME@.service (required)",
  },
  'huge-pages': { type: 'boolean', group: DB, help: 'reserve 2 MiB pages for the buffer pool' },
  distro: {
    type: 'string',
    value: 'NAME',
    choices: DISTRO_NAMES,
    group: DB,
    help: "the distribution whose units and config paths to write for (default: the\nmachine's etc/os-release; asked when it has none)",
  },
  server: {
    type: 'string',
    value: 'NAME',
    choices: ['mysql', 'mariadb'],
    group: DB,
    help: 'mysql: the server package, mysql or mariadb (default mysql)',
  },
  'pg-version': {
    type: 'string',
    value: 'N',
    group: DB,
    help: "postgres: the major version (Debian/Ubuntu: default the release's;\nRHEL family: PGDG's postgresql-N instead of the distribution's postgresql)",
  },
  'pg-cluster': {
    type: 'string',
    value: 'NAME',
    group: DB,
    help: 'postgres on Debian/Ubuntu: the cluster (default main): postgresql@N-NAME',
  },
  'per-core': { type: 'boolean', group: 'redis', help: 'one instance per physical core instead of one per node' },
  'per-l3': {
    type: 'boolean',
    group: 'redis',
    help: 'one instance per L3 cache (EPYC CCX/CCD) instead of one per node, pinned to its CPUs',
  },
  'base-port': { type: 'string', value: 'P', group: 'redis', help: 'first port (default 6379)' },
  user: {
    type: 'string',
    value: 'NAME',
    group: 'redis',
    help: 'the user the service runs as (spark, redis, jvm, elasticsearch, service)',
  },
  instances: {
    type: 'string',
    value: 'N',
    group: 'redis',
    help: 'only the first N nodes (at most the number of nodes; jvm, elasticsearch too)',
  },
  heap: {
    type: 'string',
    value: 'SIZE',
    group: JVM,
    help: "heap (required); heap + 10% within a node's budget -> one instance per\nnode, else one interleaved instance; more than the machine can take -> refused",
  },
  jar: { type: 'string', value: 'PATH', complete: 'file', group: JVM, help: 'jvm: the application jar (required)' },
  'per-node': {
    type: 'boolean',
    group: 'service',
    help: 'one instance per node (default: one, on --node or the best node)',
  },
  'bandwidth-bound': {
    type: 'boolean',
    group: 'service',
    help: 'the program is memory-bandwidth-bound: on a tiered machine (memory-only\nnodes, HMAT) an instance is weighted-interleaved over its node and the\nslower nodes nearest it when that adds 10% or more bandwidth',
  },
} as const;

async function writePlan(out: string, files: readonly PlanFile[], force: boolean): Promise<void> {
  const dir = resolve(out);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!force)
      throw new NumakitError(
        `--out ${out}: not empty; choose a new directory or add --force to replace an earlier plan`,
      );
    if (!existsSync(join(dir, 'PLAN.md')))
      throw new NumakitError(`--out ${out}: not empty and holds no PLAN.md; refusing to replace it even with --force`);
  }
  makeDirs(dirname(dir));
  await replaceDir(dir, (tmp) => {
    for (const f of files) {
      const p = join(tmp, f.path.replace(/^\/+/, ''));
      makeDirs(dirname(p));
      writeFileSync(p, f.content);
      chmodSync(p, f.mode);
    }
  });
}

const plan: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['WORKLOAD [options] [--out DIR [--force]] [--json]'],
  description: `Writes a NUMA-aware deployment plan for this machine (or a --root snapshot or --example):
config files, systemd units and scripts, plus PLAN.md with every number's derivation from the
machine's facts, the rollout (one host first, A/B for a day, how to roll back) and what to check.
Every plan checks its own arithmetic: what it commits on a node (heaps, overheads, daemons)
stays within MemTotal minus a reserve of max(10%, 2 GiB), shown in PLAN.md's "Memory per
node"; a bind policy never goes over it, and a plan that cannot fit is refused with the numbers.
Inside a cpuset (a container, a slice with AllowedCPUs=) it sizes from the CPUs and memory
nodes the cgroup allows, and its first number says so.
Without --out the files are printed one after another. Options a workload does not use are
refused. Values that end up in units or scripts (names, paths, commands) are refused when they
hold spaces, quotes or shell metacharacters; they are never quoted into place.`,
  options: OPTIONS,
  positionals: {
    name: 'WORKLOAD',
    complete: Object.keys(PLANNERS),
    help: Object.entries(PLANNERS)
      .map(([k, p]) => `${k.padEnd(17)} ${p.summary}`)
      .join('\n'),
  },
  sections: [
    {
      title: 'examples',
      body: `numakit --example spark-2s plan spark-standalone
numakit --example spark-2s plan mysql --buffer-pool 48g --huge-pages
numakit --example epyc-nps4 plan postgres --buffer-pool 8g --pg-version 16
numakit --example epyc-nps4 plan service --name ingest --exec '/usr/local/bin/ingest -v' --per-node
numakit --root snap.tar.gz plan spark-standalone --master spark://m1:7077 --out plan-m1`,
    },
  ],
  async run({ values, positionals }, ctx) {
    if (positionals.length !== 1)
      throw new UsageError(`plan: name one workload (${Object.keys(PLANNERS).join(', ')}); see numakit plan --help`);
    if (values.force && values.out === undefined) throw new UsageError('plan: --force goes with --out');
    const decision = planWorkload(positionals[0]!, machineShare(readPlanInput(ctx.root)), values);
    const files = await renderPlan(decision);
    if (values.out !== undefined) await writePlan(values.out, files, values.force === true);
    if (values.json) {
      ctx.out(
        `${JSON.stringify(
          {
            schemaVersion: 1,
            workload: positionals[0],
            machine: decision.machine.label,
            out: values.out ?? null,
            derivations: decision.derivations,
            notes: decision.notes,
            files: files.map((f) => ({ path: f.path, mode: f.mode, about: f.about, content: f.content })),
          },
          null,
          2,
        )}\n`,
      );
    } else if (values.out === undefined) ctx.out(renderPlanText(files));
    else ctx.out(`wrote ${files.length} files to ${values.out}; read ${join(values.out, 'PLAN.md')} first\n`);
    return 0;
  },
};
export default plan;
