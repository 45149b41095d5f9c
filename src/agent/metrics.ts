// --metrics ADDR: the agent serves what `numakit serve` serves (src/serve: the same hardened
// HTTP server, exporter and dashboard), plus its own metrics and its recent decisions. On
// 127.0.0.1 unless ADDR names a host; who may connect is serve's rule (src/serve/listener.ts)
// under the agent's option names: a host other machines can reach needs metrics-token-file,
// a metrics-web-config-file that authenticates every request, or metrics-insecure-public.
import { hostname } from 'node:os';
import { UsageError } from '../model/errors.js';
import type { ProcessView } from '../policy/agent/types.js';
import { locality } from '../policy/locality.js';
import type { SysRoot } from '../sysfs/root.js';
import type { MachineReading } from './machine.js';
import type { AgentMetricsSink } from './metrics_sink.js';

/** "10464", ":10464", "0.0.0.0:10464", "[::1]:10464" -> host and port; 127.0.0.1 by default. */
export function parseMetricsAddr(addr: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    throw new UsageError(`--metrics ${addr}: expected PORT or HOST:PORT (e.g. 10464 or 127.0.0.1:10464)`);
  const host = m[1] === undefined || m[1] === '' ? '127.0.0.1' : m[1].replace(/^\[|\]$/g, '');
  return { host, port };
}

export interface AgentMetrics extends AgentMetricsSink {
  /** The address it listens on ("127.0.0.1:10464"). */
  readonly address: string;
  /** "http", or "https" with the web config's tls_server_config. */
  readonly scheme: 'http' | 'https';
  /** What access the server allows, for the ready line. */
  readonly access: string;
  /** A log line, kept among the recent decisions the dashboard shows. */
  logged(line: string): void;
  close(): Promise<void>;
}

export interface MetricsOptions {
  readonly root: SysRoot;
  readonly tokenFile?: string | undefined;
  readonly webConfigFile?: string | undefined;
  readonly insecurePublic?: boolean | undefined;
  /** Where a request that failed or a refused TLS connection is said, one line each; default stderr. */
  readonly log?: (line: string) => void;
}

/** The agent's spelling of serve's access options, in its messages. */
export const AGENT_METRICS_FLAGS = {
  token: '--metrics-token-file',
  web: '--metrics-web-config-file',
  insecure: '--metrics-insecure-public',
} as const;

async function agentRegistry() {
  const { CounterVec, GaugeVec, Recent } = await import('../serve/registry.js');
  return {
    locality: new GaugeVec(
      'numakit_agent_process_locality',
      "Share of a managed process's memory on the nodes where it runs (0..1)",
    ),
    migrations: new CounterVec('numakit_agent_migrations_total', 'Processes whose pages the agent migrated', [{}]),
    bytes: new CounterVec('numakit_agent_moved_bytes_total', 'Bytes of memory the agent migrated', [{}]),
    pages: new CounterVec('numakit_agent_moved_pages_total', 'Pages the agent migrated', [{}]),
    threads: new CounterVec('numakit_agent_thread_affinity_changes_total', 'Thread affinities the agent set', [{}]),
    cgroupLocality: new GaugeVec(
      'numakit_agent_cgroup_locality',
      "Share of a managed cgroup's memory on the nodes where its threads run (0..1), with --unit cgroup",
    ),
    cgroupBytes: new CounterVec(
      'numakit_agent_cgroup_moved_bytes_total',
      'Bytes of memory the agent migrated for a cgroup placed as one unit (--unit cgroup)',
    ),
    putBack: new CounterVec(
      'numakit_agent_restore_failures_total',
      'Thread affinities the agent set and could not put back after a failed action (journaled; numakit agent restore retries)',
      [{}],
    ),
    // The outcomes of an action start at 0, so increase() sees the first one.
    decisions: new CounterVec(
      'numakit_agent_decisions_total',
      'Decisions by outcome (moved, partial, gone, failed, advised, or why a process was left alone)',
      ['moved', 'partial', 'gone', 'failed', 'advised'].map((outcome) => ({ outcome })),
    ),
    free: new GaugeVec(
      'numakit_node_free_bytes',
      "Free memory of a node (nodeN/meminfo MemFree) at the agent's last pass",
    ),
    numastat: new CounterVec(
      'numakit_node_numastat_pages_total',
      "nodeN/numastat counters (pages since boot) at the agent's last pass",
    ),
    passErrors: new CounterVec(
      'numakit_agent_pass_errors_total',
      'Passes that threw an error (the log line names it; the agent goes on with the next pass)',
      [{}],
    ),
    recent: new Recent<{ time: string; line: string }>(50),
  };
}

export async function startMetrics(addr: string, o: MetricsOptions): Promise<AgentMetrics> {
  const { host, port } = parseMetricsAddr(addr);
  const [{ prepareListener }, { reloadToken }, { startHttpServer }, { Scraper }, { appRoutes }, { selfFamilies }, r] =
    await Promise.all([
      import('../serve/listener.js'),
      import('../serve/auth.js'),
      import('../serve/http_server.js'),
      import('../serve/scrape.js'),
      import('../serve/app.js'),
      import('../serve/collect/self.js'),
      agentRegistry(),
    ]);
  const listener = await prepareListener({
    listen: { host, port },
    tokenFile: o.tokenFile,
    webConfigFile: o.webConfigFile,
    insecurePublic: o.insecurePublic,
    what: 'agent --metrics',
    flags: AGENT_METRICS_FLAGS,
  });
  const log = o.log ?? ((l: string) => void process.stderr.write(l));
  const scraper = new Scraper(o.root, { top: 10, doctorIntervalMs: 300_000, timeoutMs: 8000, doctor: true, log });
  scraper.prime();
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const extra = () => [
    r.locality.family(),
    r.cgroupLocality.family(),
    r.cgroupBytes.family(),
    r.migrations.family(),
    r.bytes.family(),
    r.pages.family(),
    r.threads.family(),
    r.putBack.family(),
    r.decisions.family(),
    r.passErrors.family(),
    r.free.family(),
    r.numastat.family(),
    {
      name: 'numakit_agent_cpu_seconds_total',
      type: 'counter' as const,
      help: 'CPU time the agent itself used (user + system)',
      samples: [{ labels: {}, value: cpu() }],
    },
    ...selfFamilies('numakit_agent_'),
  ];
  const server = await startHttpServer({
    listen: { host, port },
    token: listener.token,
    web: listener.web,
    what: 'agent --metrics',
    onError: (e) => log(`numakit: agent --metrics: ${(e as Error).message}\n`),
    onRefused: (line) => log(`numakit: ${line}\n`),
    routes: appRoutes(scraper, {
      nodeExporterNames: true,
      extra,
      title: o.root.isReal ? hostname() : o.root.label,
      agent: () => ({ running: true, pid: process.pid, recent: r.recent.list() }),
    }),
  });
  return {
    address: server.address,
    scheme: server.scheme,
    access: listener.described,
    close: async () => {
      await Promise.all([server.close(), scraper.doctor.stop()]);
    },
    reload: () => reloadToken(listener.access, server, AGENT_METRICS_FLAGS.token),
    logged: (line) => r.recent.push({ time: new Date().toISOString(), line }),
    decision: (outcome) => r.decisions.inc({ outcome }),
    putBackFailed: (threads) => r.putBack.inc({}, threads),
    passFailed: () => r.passErrors.inc(),
    moved: (bytes, pages, threads, cgroup) => {
      if (bytes > 0) r.migrations.inc();
      if (cgroup !== undefined) r.cgroupBytes.inc({ cgroup }, bytes);
      r.bytes.inc({}, bytes);
      r.pages.inc({}, pages);
      r.threads.inc({}, threads);
    },
    forgetUnits: (alive) => r.cgroupBytes.retain((l) => l.cgroup === undefined || alive(l.cgroup)),
    locality: (ps: readonly ProcessView[]) => {
      r.locality.reset();
      r.cgroupLocality.reset();
      for (const p of ps) {
        const l = locality(p);
        if (l === null) continue;
        if (p.unit !== undefined) r.cgroupLocality.set({ cgroup: p.unit.cgroup }, l);
        else r.locality.set({ pid: String(p.pid), comm: p.comm }, l);
      }
    },
    machine: (m: MachineReading) => {
      for (const n of m.nodes) r.free.set({ node: String(n.id) }, n.freeBytes);
      for (const [node, counters] of m.numastat)
        for (const [k, v] of Object.entries(counters)) r.numastat.setTotal({ node: String(node), counter: k }, v);
    },
  };
}
