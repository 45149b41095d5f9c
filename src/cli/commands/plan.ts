// numakit plan WORKLOAD [options] [--out DIR]
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { discoverTopology } from '../../discover/topology.js';
import { NumakitError, UsageError } from '../../model/errors.js';
import { machineShare } from '../../policy/plan/machine.js';
import { planWorkload, PLANNERS } from '../../policy/plan/index.js';
import type { PlanFile } from '../../policy/plan/types.js';
import { renderPlan, renderPlanText } from '../../render/plan/index.js';
import type { Command } from '../context.js';

const STRINGS = [
  'out', 'cores-fraction', 'memory-fraction', 'overhead', 'hosts', 'spark-home', 'java-home', 'user', 'data-dir', 'master', 'wrapper-home',
  'buffer-pool', 'node', 'systemd-version', 'exec', 'heap', 'instances', 'name', 'jar', 'base-port', 'maxmemory-fraction',
  'k8s-node', 'image', 'namespace', 'hadoop-conf', 'group', 'local-size',
] as const;
const BOOLEANS = ['force', 'per-core', 'per-node', 'huge-pages'] as const;

const usage = `usage: numakit plan WORKLOAD [options] [--out DIR]

Writes a NUMA-aware deployment plan for this machine (or a --root snapshot or --example):
config files, systemd units and scripts, plus PLAN.md with every number's derivation from the
machine's facts, the rollout (one host first, A/B for a day, how to roll back) and what to check.
Without --out the files are printed one after another.

workloads:
${Object.entries(PLANNERS).map(([k, p]) => `  ${k.padEnd(17)} ${p.summary}`).join('\n')}

common options:
  --out DIR              write the files under DIR (by install path) and DIR/PLAN.md; DIR must
                         not exist or be empty (--force replaces an earlier plan there)

spark-standalone, spark-yarn, spark-k8s:
  --cores-fraction F     executor cores = physical cores of the node x F (default 0.8)
  --memory-fraction F    executor memory = node memory x F (default 0.85)
  --overhead PCT         spark.executor.memoryOverhead, percent of executor memory, 10..20 (default 15)
  --hosts N              hosts of this shape in the cluster, for cluster totals (default 1)
  --spark-home DIR       (default /opt/spark)   --java-home DIR (default /usr/lib/jvm/default-java)
  --user NAME            (default spark)        --data-dir DIR  NVMe mounts DIR/nodeN (default /data)
  --master URL           spark-standalone: spark://master:7077
  --wrapper-home DIR     where the numactl java wrapper goes (default /opt/numa-java)
  --hadoop-conf DIR      spark-yarn: (default /etc/hadoop/conf)  --group NAME (default hadoop)
  --k8s-node NAME        spark-k8s: this machine's Kubernetes node name (required)
  --image REF --namespace NAME --local-size SIZE   spark-k8s (apache/spark:3.5.1, spark, 500g)

mysql, postgres:
  --buffer-pool SIZE     innodb_buffer_pool_size / shared_buffers (required): <= 60% of the node
                         -> bind, <= 85% -> preferred, larger -> interleave
  --node N               the node to use (default: the one with the NVMe/NICs, then most memory)
  --systemd-version N    below 243 the drop-in runs the server through numactl (default 252)
  --exec 'CMD ARGS'      the server command line (needed with systemd < 243 for postgres)
  --name UNIT            the packaged unit (mysql, postgresql)   --huge-pages  reserve 2 MiB pages

redis:
  --per-core             one instance per physical core instead of one per node
  --instances N          only the first N nodes (at most the number of nodes)
  --base-port P          first port (default 6379)   --user NAME (default redis)

jvm, elasticsearch:
  --heap SIZE            heap (required); fits a node (<= 85%) -> one instance per node, else one
                         interleaved instance
  --jar PATH             jvm: the application jar (required)   --name NAME  --java-home DIR
  --instances N          at most the number of nodes            --user NAME  --data-dir DIR

service:
  --name NAME --exec 'PROGRAM ARGS'   (required) a template unit NAME@.service, instance = node
  --per-node             one instance per node (default: one, on --node or the best node)
  --systemd-version N    below 243 the template runs the program through numactl

Values that end up in units or scripts (names, paths, commands) are refused when they hold spaces,
quotes or shell metacharacters; they are never quoted into place. Heaps or buffer pools larger than
the machine and more instances than NUMA nodes are refused.

examples:
  numakit --example spark-2s plan spark-standalone
  numakit --example spark-2s plan mysql --buffer-pool 48g --huge-pages
  numakit --example epyc-nps4 plan service --name ingest --exec '/usr/local/bin/ingest -v' --per-node
  numakit --root snap.tar.gz plan spark-standalone --master spark://m1:7077 --out plan-m1
`;

function writePlan(out: string, files: readonly PlanFile[], force: boolean): void {
  const dir = resolve(out);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!force) throw new NumakitError(`--out ${out}: not empty; choose a new directory or add --force to replace an earlier plan`);
    if (!existsSync(join(dir, 'PLAN.md'))) throw new NumakitError(`--out ${out}: not empty and holds no PLAN.md; refusing to replace it even with --force`);
  }
  const tmp = `${dir}.numakit-tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    for (const f of files) {
      const p = join(tmp, f.path.replace(/^\/+/, ''));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content);
      chmodSync(p, f.mode);
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

const plan: Command = {
  summary: 'NUMA-aware deployment plans and config files (Spark, YARN, Kubernetes, databases, Redis, JVM, services)',
  usage,
  async run(args, ctx) {
    const options = Object.fromEntries([...STRINGS.map((k) => [k, { type: 'string' as const }]), ...BOOLEANS.map((k) => [k, { type: 'boolean' as const }])]);
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    const values = parsed.values as unknown as Record<string, string | boolean | undefined>;
    const positionals = parsed.positionals;
    if (positionals.length !== 1) throw new UsageError(`plan: name one workload (${Object.keys(PLANNERS).join(', ')}); see numakit plan --help`);
    const topo = discoverTopology(ctx.root);
    const label = ctx.root.isReal ? `host ${hostname()}` : ctx.root.label;
    const decision = planWorkload(positionals[0]!, machineShare(topo, label), values);
    const files = renderPlan(decision);
    const out = typeof values['out'] === 'string' ? values['out'] : undefined;
    if (out === undefined) {
      ctx.out(renderPlanText(files));
      return 0;
    }
    writePlan(out, files, values['force'] === true);
    ctx.out(`wrote ${files.length} files to ${out}; read ${join(out, 'PLAN.md')} first\n`);
    return 0;
  },
};
export default plan;
