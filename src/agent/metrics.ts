// --metrics ADDR: the agent serves what `numakit serve` serves (src/serve: the same hardened
// HTTP server, exporter and dashboard), plus its own metrics and its recent decisions. On
// 127.0.0.1 unless ADDR names a host; a host other machines can reach needs
// metrics-token-file or metrics-insecure-public, as serve's --listen does.
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
  /** What access the server allows, for the ready line. */
  readonly access: string;
  /** A log line, kept among the recent decisions the dashboard shows. */
  logged(line: string): void;
  close(): Promise<void>;
}

export interface MetricsOptions {
  readonly root: SysRoot;
  readonly tokenFile?: string | undefined;
  readonly insecurePublic?: boolean | undefined;
}

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
  const [
    { decideAccess, describeAccess },
    { readTokenFile, reloadToken },
    { startHttpServer },
    { Scraper },
    { appRoutes },
    { selfFamilies },
    r,
  ] = await Promise.all([
    import('../serve/listen.js'),
    import('../serve/auth.js'),
    import('../serve/http_server.js'),
    import('../serve/scrape.js'),
    import('../serve/app.js'),
    import('../serve/collect/self.js'),
    agentRegistry(),
  ]);
  const access = decideAccess(
    { host, port },
    { tokenFile: o.tokenFile, insecurePublic: o.insecurePublic, what: 'agent --metrics' },
  );
  const scraper = new Scraper(o.root, { top: 10, doctorIntervalMs: 300_000, timeoutMs: 8000, doctor: true });
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
    token: access.kind === 'token' ? readTokenFile(access.file) : null,
    what: 'agent --metrics',
    routes: appRoutes(scraper, {
      nodeExporterNames: true,
      extra,
      title: o.root.isReal ? hostname() : o.root.label,
      agent: () => ({ running: true, pid: process.pid, recent: r.recent.list() }),
    }),
  });
  return {
    address: server.address,
    access: describeAccess(access),
    close: async () => {
      await Promise.all([server.close(), scraper.doctor.stop()]);
    },
    reload: () => reloadToken(access, server),
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
