// --metrics ADDR: Prometheus metrics over HTTP (prom-client, loaded only here), on 127.0.0.1
// unless ADDR names a host. Locality of each managed process, migrations, bytes/pages/threads
// moved, decisions by outcome, per-node free memory and numastat counters, the agent's own CPU.
import { createServer, type Server } from 'node:http';
import { UsageError } from '../model/errors.js';
import type { ProcessView } from '../policy/agent/types.js';
import { locality } from '../policy/locality.js';
import type { MachineReading } from './machine.js';
import type { AgentMetricsSink } from './metrics_sink.js';

/** "9464", ":9464", "0.0.0.0:9464", "[::1]:9464" -> host and port; 127.0.0.1 by default. */
export function parseMetricsAddr(addr: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--metrics ${addr}: expected PORT or HOST:PORT (e.g. 9464 or 127.0.0.1:9464)`);
  const host = m[1] === undefined || m[1] === '' ? '127.0.0.1' : m[1].replace(/^\[|\]$/g, '');
  return { host, port };
}

export interface AgentMetrics extends AgentMetricsSink {
  /** The address it listens on ("127.0.0.1:9464"). */
  readonly address: string;
  close(): Promise<void>;
}

async function registry() {
  const prom = await import('prom-client');
  const register = new prom.Registry();
  prom.collectDefaultMetrics({ register, prefix: 'numakit_agent_' });
  const g = (name: string, help: string, labelNames: string[] = []) => new prom.Gauge({ name, help, labelNames, registers: [register] });
  const c = (name: string, help: string, labelNames: string[] = []) => new prom.Counter({ name, help, labelNames, registers: [register] });
  return {
    register,
    locality: g('numakit_agent_process_locality', 'Share of a managed process\'s memory on the nodes where it runs (0..1)', ['pid', 'comm']),
    migrations: c('numakit_agent_migrations_total', 'Processes whose pages the agent migrated'),
    bytes: c('numakit_agent_moved_bytes_total', 'Bytes of memory the agent migrated'),
    pages: c('numakit_agent_moved_pages_total', 'Pages the agent migrated'),
    threads: c('numakit_agent_thread_affinity_changes_total', 'Thread affinities the agent set'),
    decisions: c('numakit_agent_decisions_total', 'Decisions by outcome (moved, partial, gone, failed, advised, or why a process was left alone)', ['outcome']),
    free: g('numakit_node_free_bytes', 'Free memory of a node (nodeN/meminfo MemFree)', ['node']),
    numastat: g('numakit_node_numastat_pages', 'nodeN/numastat counters (pages since boot)', ['node', 'counter']),
    cpu: new prom.Gauge({
      name: 'numakit_agent_cpu_seconds', help: 'CPU time the agent itself used (user + system)', registers: [register],
      collect() {
        const u = process.cpuUsage();
        this.set((u.user + u.system) / 1e6);
      },
    }),
  };
}

export async function startMetrics(addr: string): Promise<AgentMetrics> {
  const { host, port } = parseMetricsAddr(addr);
  const r = await registry();
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end('numakit agent: metrics are at /metrics\n');
      return;
    }
    r.register.metrics().then((text) => res.writeHead(200, { 'Content-Type': r.register.contentType }).end(text), (e: Error) => res.writeHead(500).end(e.message));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new UsageError(`--metrics ${addr}: cannot listen on ${host}:${port} (${e.code ?? e.message})`)));
    server.listen(port, host, resolve);
  });
  const a = server.address();
  const address = typeof a === 'object' && a !== null ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : `${host}:${port}`;
  return {
    address,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    decision: (outcome) => r.decisions.inc({ outcome }),
    moved: (bytes, pages, threads) => {
      if (bytes > 0) r.migrations.inc();
      r.bytes.inc(bytes);
      r.pages.inc(pages);
      r.threads.inc(threads);
    },
    locality: (ps: readonly ProcessView[]) => {
      r.locality.reset();
      for (const p of ps) {
        const l = locality(p);
        if (l !== null) r.locality.set({ pid: String(p.pid), comm: p.comm }, l);
      }
    },
    machine: (m: MachineReading) => {
      for (const n of m.nodes) r.free.set({ node: String(n.id) }, n.freeBytes);
      for (const [node, counters] of m.numastat) for (const [k, v] of Object.entries(counters)) r.numastat.set({ node: String(node), counter: k }, v);
    },
  };
}
