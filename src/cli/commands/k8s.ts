// numakit k8s nrt [--node NAME] [--apply] ... | numakit k8s agent-stop [--state-dir DIR] [--wait DUR]
import { NumakitError, UsageError } from '../../model/errors.js';
import type { Context } from '../context.js';
import type { Command, ParsedOptions, CommandModule } from '../options.js';
import { stateDirOf, stateDirOption } from '../state_dir_option.js';

const POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'] as const;
const SCOPES = ['container', 'pod'] as const;

const NRT_OPTIONS = {
  node: { type: 'string', value: 'NAME', help: 'the Kubernetes node (default: $NODE_NAME, else the host name)' },
  'topology-manager-policy': {
    type: 'string',
    value: 'POLICY',
    choices: POLICIES,
    help: "the kubelet's topologyManagerPolicy, published for the scheduler (default none)",
  },
  'topology-manager-scope': {
    type: 'string',
    value: 'SCOPE',
    choices: SCOPES,
    help: "the kubelet's topologyManagerScope (default container)",
  },
  'reserved-cpus': {
    type: 'string',
    value: 'LIST',
    help: "the kubelet's reservedSystemCPUs (e.g. 0-1,32-33): not allocatable",
  },
  json: { type: 'boolean', help: 'print the object as JSON (default YAML)' },
  apply: { type: 'boolean', help: 'create or replace the object in the cluster instead of printing it' },
  server: {
    type: 'string',
    value: 'URL',
    group: 'with --apply',
    help: 'API server (default: the in-cluster one, from KUBERNETES_SERVICE_HOST/PORT)',
  },
  'token-file': {
    type: 'string',
    value: 'FILE',
    group: 'with --apply',
    help: "bearer token (default: the pod's service account token)",
  },
  'ca-file': {
    type: 'string',
    value: 'FILE',
    group: 'with --apply',
    help: "CA bundle of the API server (default: the service account's ca.crt)",
  },
} as const;

async function runNrt({ values }: ParsedOptions<typeof NRT_OPTIONS>, ctx: Context): Promise<number> {
  const withApply = ['server', 'token-file', 'ca-file'].filter((k) => values[k as keyof typeof values] !== undefined);
  if (!values.apply && withApply.length > 0) throw new UsageError(`k8s nrt: --${withApply[0]} needs --apply`);
  if (values.apply && values.json) throw new UsageError('k8s nrt: --json and --apply cannot be used together');
  const [{ discoverTopology }, { buildNrt, parseReservedCpus }, { hostNameOf }] = await Promise.all([
    import('../../discover/topology.js'),
    import('../../render/k8s_nrt.js'),
    import('../../sysfs/hostname.js'),
  ]);
  const node = values.node ?? process.env['NODE_NAME'] ?? hostNameOf(ctx.root);
  if (node === null) throw new UsageError('k8s nrt: no node name: give --node');
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(node))
    throw new UsageError(`k8s nrt: --node '${node}': not a Kubernetes node name (lowercase DNS subdomain)`);
  let reserved: number[];
  try {
    reserved = parseReservedCpus(values['reserved-cpus'] ?? '');
  } catch (e) {
    throw new UsageError(`k8s nrt: --reserved-cpus ${values['reserved-cpus']}: ${(e as Error).message}`);
  }
  const nrt = buildNrt(discoverTopology(ctx.root, { caches: false }), {
    node,
    reservedCpus: reserved,
    policy: (values['topology-manager-policy'] as (typeof POLICIES)[number] | undefined) ?? 'none',
    scope: (values['topology-manager-scope'] as (typeof SCOPES)[number] | undefined) ?? 'container',
  });
  if (!values.apply) {
    ctx.out(values.json ? JSON.stringify(nrt, null, 2) + '\n' : (await import('yaml')).stringify(nrt));
    return 0;
  }
  const [{ openConnection }, { publishNrt }] = await Promise.all([
    import('../../actuate/k8s_api.js'),
    import('../../actuate/k8s_nrt_publish.js'),
  ]);
  const outcome = await publishNrt(
    openConnection({ server: values.server, tokenFile: values['token-file'], caFile: values['ca-file'] }),
    nrt,
  );
  ctx.out(`NodeResourceTopology ${node}: ${outcome} (${nrt.zones.length} zone${nrt.zones.length === 1 ? '' : 's'})\n`);
  return 0;
}

const nrt: Command<ParsedOptions<typeof NRT_OPTIONS>> = {
  summary: 'publish the NUMA zones as a NodeResourceTopology (topology.node.k8s.io/v1alpha2)',
  synopsis: [
    '[--node NAME] [--topology-manager-policy P] [--topology-manager-scope S] [--reserved-cpus LIST] [--json]',
    '--apply [--server URL] [--token-file FILE] [--ca-file FILE]',
  ],
  description: `The node's NUMA zones as a NodeResourceTopology object named after the node, for the
scheduler-plugins NodeResourceTopologyMatch plugin: one zone per NUMA node ("node-N"), its
CPUs, memory and huge pages as resources, the distances to every zone as costs, and the
kubelet's Topology Manager policy and scope as attributes. Printed (YAML, or --json), or with
--apply created in the cluster (replaced when numakit made it). An object another exporter
made (NFD topology-updater, RTE: anything without the label app.kubernetes.io/managed-by=numakit)
is never overwritten: that is an error. "available" equals "allocatable": numakit does not
follow the CPUs and memory the kubelet gives Guaranteed pods; when that matters use NFD's
topology-updater or RTE instead (docs/fleet.md).`,
  options: NRT_OPTIONS,
  exit: { 1: 'the API server refused, or the object belongs to another exporter' },
  run: runNrt,
};

/** How long agent-stop waits for the agent to put everything back, unless --wait says. */
const DEFAULT_WAIT = '50s';

const STOP_OPTIONS = {
  'state-dir': stateDirOption("the agent's journal directory"),
  wait: {
    type: 'string',
    value: 'DUR',
    help: `how long to wait for it to put everything back (default ${DEFAULT_WAIT})`,
  },
} as const;

async function runStop({ values }: ParsedOptions<typeof STOP_OPTIONS>, ctx: Context): Promise<number> {
  const [{ parseDuration }, { listChangeSets }, { agentRunning, AGENT_SOURCE_NAME }] = await Promise.all([
    import('../values.js'),
    import('../../actuate/journal.js'),
    import('./k8s_agent.js'),
  ]);
  const waitMs = parseDuration(values.wait ?? DEFAULT_WAIT, 'k8s agent-stop: --wait');
  const stateDir = stateDirOf(values);
  const live = listChangeSets(stateDir).filter((cs) => cs.source === AGENT_SOURCE_NAME && agentRunning(cs));
  if (live.length === 0) {
    ctx.out(`no running numakit agent in ${stateDir}: nothing to stop\n`);
    return 0;
  }
  for (const cs of live) process.kill(cs.pid, 'SIGTERM');
  ctx.out(
    `sent SIGTERM to numakit agent pid ${live.map((cs) => cs.pid).join(', ')}; waiting up to ${waitMs / 1000}s for it to restore\n`,
  );
  const end = Date.now() + waitMs;
  while (Date.now() < end) {
    const still = listChangeSets(stateDir).filter((cs) => live.some((l) => l.id === cs.id) && agentRunning(cs));
    if (still.length === 0) {
      ctx.out('the agent has stopped and put back what it changed\n');
      return 0;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new NumakitError(
    `k8s agent-stop: the agent (pid ${live.map((cs) => cs.pid).join(', ')}) is still running after ${waitMs / 1000}s`,
  );
}

const agentStop: Command<ParsedOptions<typeof STOP_OPTIONS>> = {
  summary: "stop the running numakit agent and wait until it has restored (a pod's preStop hook)",
  synopsis: ['[--state-dir DIR] [--wait DUR]'],
  description: `Finds the running numakit agent through its journal, sends it SIGTERM (on which it puts
back every thread affinity and kernel.numa_balancing) and waits until it has done so. The
Kubernetes agent DaemonSet runs it as its preStop hook (deploy/kubernetes/overlays/agent).`,
  options: STOP_OPTIONS,
  exit: { 1: 'the agent was still running when --wait ran out' },
  run: runStop,
};

const k8s: CommandModule<ParsedOptions<Record<string, never>>> = {
  synopsis: ['nrt [OPTIONS]', 'agent-stop [OPTIONS]'],
  description: 'numakit on Kubernetes nodes. The manifests are in deploy/kubernetes/; see docs/fleet.md.',
  options: {},
  subcommands: { nrt, 'agent-stop': agentStop },
  async run() {
    throw new UsageError("k8s: expected 'numakit k8s nrt' or 'numakit k8s agent-stop'");
  },
};
export default k8s;
