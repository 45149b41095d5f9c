// numakit serve [--listen ADDR:PORT] [--web.config.file FILE] [--token-file FILE] [--insecure-public]
//               [--top K] [--doctor-interval DURATION] [--no-node-exporter-names]
import { UsageError } from '../../model/errors.js';
import type { ServeOptions } from '../../serve/run.js';
import type { ParsedOptions, Values, CommandModule } from '../options.js';

const OPTIONS = {
  listen: {
    type: 'string',
    value: 'ADDR:PORT',
    help: 'where to listen (default 127.0.0.1:10464; [::1]:10464 for IPv6). An address\nother machines can reach needs --token-file, --web.config.file with\nbasic_auth_users or verified client certificates, or --insecure-public',
  },
  'web.config.file': {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    help: "node_exporter's web configuration file (Prometheus exporter toolkit):\ntls_server_config (cert_file, key_file, client_auth_type, client_ca_file,\nmin_version, max_version), basic_auth_users (bcrypt hashes),\nhttp_server_config.headers. docs/serve.md",
  },
  'token-file': {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    help: 'require this bearer token (Prometheus: authorization.credentials_file;\na browser: any user name, the token as password)',
  },
  'insecure-public': { type: 'boolean', help: 'allow a non-loopback address without a token (say so on purpose)' },
  top: {
    type: 'string',
    value: 'K',
    help: 'processes exported by remote memory (default 10, at most 100); labelled\nby name and pid only, never the command line',
  },
  'doctor-interval': {
    type: 'string',
    value: 'DUR',
    help: "re-run doctor's checks at most this often (default 5m; e.g. 30s, 1h)",
  },
  'no-node-exporter-names': {
    type: 'boolean',
    help: 'leave out node_memory_numa_* (node_exporter --collector.meminfo_numa\nalready exports them)',
  },
} as const;

export async function serveOptions(values: Values<typeof OPTIONS>): Promise<ServeOptions> {
  const top = values.top === undefined ? 10 : Number(values.top);
  if (!/^\d+$/.test(values.top ?? '10') || top > 100)
    throw new UsageError(`serve: --top ${values.top}: expected a whole number 0..100`);
  const { parseDuration } = await import('../values.js');
  const doctorIntervalMs = parseDuration(values['doctor-interval'] ?? '5m', 'serve: --doctor-interval');
  if (doctorIntervalMs < 1000)
    throw new UsageError(`serve: --doctor-interval ${values['doctor-interval']}: at least 1s`);
  return {
    listen: values.listen,
    tokenFile: values['token-file'],
    webConfigFile: values['web.config.file'],
    insecurePublic: values['insecure-public'] === true,
    top,
    doctorIntervalMs,
    nodeExporterNames: values['no-node-exporter-names'] !== true,
  };
}

const serve: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: [
    '[--listen ADDR:PORT] [--web.config.file FILE] [--token-file FILE] [--insecure-public] [--top K] [--doctor-interval DURATION] [--no-node-exporter-names]',
  ],
  description: `A Prometheus exporter and a live web dashboard of this machine's NUMA state, on one port:
  /metrics   node_exporter's node_memory_numa_* series (same names, types and labels), and
             numakit_* series no exporter has: CPU busy/idle per node, distances, huge pages
             per node and size, the top-K processes by remote memory with their locality,
             doctor findings, IRQs served off their device's node, tiering counters
  /          the dashboard: topology picture, live memory and hit/miss rates per node,
             processes by remote memory, doctor findings (docs/serve.md)

Read-only: nothing it serves changes the machine. Runs until SIGINT or SIGTERM.`,
  options: OPTIONS,
  sections: [
    {
      title: 'examples',
      body: `numakit serve                                   # http://127.0.0.1:10464/
numakit serve --listen 0.0.0.0:10464 --web.config.file /etc/numakit/web.yml   # TLS, basic auth
numakit serve --listen 0.0.0.0:10464 --token-file /etc/numakit/token
numakit --example epyc-nps4 serve               # a shipped example's picture and metrics`,
    },
  ],
  exit: { 1: 'cannot listen (address in use, no such address), or read the token file or the web config' },
  async run({ values }, ctx) {
    const o = await serveOptions(values);
    const { runServe } = await import('../../serve/run.js');
    const { daemonHeapPacer } = await import('../../runtime/heap_pace.js');
    const heap = daemonHeapPacer('serve', ctx.err);
    return runServe(o, { root: ctx.root, out: ctx.out, err: ctx.err, signals: process, heap });
  },
};
export default serve;
