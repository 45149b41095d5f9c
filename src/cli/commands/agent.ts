// numakit agent [OPTIONS] | numakit agent restore: the placement daemon and its undo.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openSystem } from '../../actuate/system.js';
import { readPageSize } from '../../discover/node_stat.js';
import { NumakitError, UsageError } from '../../model/errors.js';
import { requireRealRoot } from '../../sysfs/root.js';
import { DEFAULT_AGENT, type AgentConfig } from '../../agent/config.js';
import { applySettings, KEYS, parseConfigFile, type Raw } from '../../agent/settings.js';
import type { Command, Context } from '../context.js';

const usage = `usage: numakit agent [OPTIONS]
       numakit agent restore [--state-dir DIR]

A placement daemon: every interval it samples processes, and for each busy, large one it picks
the node set that maximises the share of its memory local to its threads (given its CPU need,
each node's idle CPUs and free memory, and distances), then binds its threads there and/or
migrates its pages. Everything it changes (each thread's previous affinity, numa_balancing) is
journaled before the change and put back on SIGINT/SIGTERM; after a SIGKILL or crash,
'numakit agent restore' puts it back (the shipped systemd unit runs it as ExecStopPost).

Which processes:
  --min-rss SIZE        resident memory to be managed (default 32M; k/M/G binary units)
  --min-cpu CPUS        CPU use to be managed, in CPUs (default 0.2 = 20% of one CPU)
  --include RE          only processes whose comm or command line matches (repeatable)
  --exclude RE          never processes whose comm or command line matches (repeatable)
  --override-pins       also manage processes whose CPU affinity or memory policy was set by
                        someone else (left alone by default). Never: kernel threads, PID 1, itself.
How:
  --tune MODE           threads (move threads to the memory), pages (move memory to the threads)
                        or both (default: the cheaper of the two that fits)
  --strategy S          balance (spread load, default) or consolidate (pack onto fewer nodes)
  --min-gain F          act only when locality would rise by at least this (default 10%)
  --cooldown DUR        leave a process alone this long after acting on it (default 30s)
  --max-migrate-mbps N  global migration budget in MB/s (default 1000; 0 = unlimited)
  --numa-balancing M    off (default: the kernel's AutoNUMA is disabled while the agent runs,
                        restored on exit) or keep
Running:
  --interval DUR        time between passes (default 5s)
  --advise              change nothing: log what it would do and why
  --once                one pass (over one interval) and exit; its changes stay, journaled
                        (numa_balancing is not touched); 'numakit agent restore' undoes them
  --log-format F        text (default) or json: one line per decision with its reason
  --metrics ADDR        serve Prometheus metrics at http://ADDR/metrics (PORT or HOST:PORT;
                        host 127.0.0.1 unless given)
  --config FILE         YAML file with the same keys as these options (flags win)
  --state-dir DIR       journal directory (default ${DEFAULT_AGENT.stateDir})

Durations: 5s, 500ms, 2m. Needs root (CAP_SYS_NICE and /proc/sys writes) unless --advise.
`;

const OPTIONS = {
  ...Object.fromEntries(Object.keys(KEYS).map((k) => [k, { type: 'string' as const }])),
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'override-pins': { type: 'boolean' },
  advise: { type: 'boolean' },
  once: { type: 'boolean' },
  config: { type: 'string' },
} as const;

/** Settings from the config file (if any) then the flags. */
export async function agentConfig(args: string[]): Promise<AgentConfig> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0) throw new UsageError(`agent: unexpected argument '${positionals[0]}' (did you mean 'numakit agent restore'?)`);
  let cfg = DEFAULT_AGENT;
  const file = values.config as string | undefined;
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new NumakitError(`--config ${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    cfg = await parseConfigFile(text, file);
  }
  const flags = Object.fromEntries(Object.entries(values).filter(([k]) => k !== 'config')) as Record<string, Raw | undefined>;
  return applySettings(cfg, flags, (k) => `agent: --${k}`);
}

async function restore(args: string[], ctx: Context): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { 'state-dir': { type: 'string' } } });
  requireRealRoot(ctx.root, 'agent restore');
  const { restoreLeftovers } = await import('../../agent/restore.js');
  const { nativeOps } = await import('../../agent/ops.js');
  const results = restoreLeftovers(openSystem(ctx.root), { stateDir: values['state-dir'] ?? DEFAULT_AGENT.stateDir, ops: await nativeOps(ctx.root), log: (l) => ctx.out(`  ${l}\n`) });
  if (results.length === 0) ctx.out('nothing to restore: no agent change set with changes left\n');
  for (const r of results) ctx.out(`change set ${r.changeSet.id}: ${r.threads} thread affinit${r.threads === 1 ? 'y' : 'ies'} restored (${r.gone} thread(s) had exited), ${r.sysctls.length} sysctl(s); ${r.changeSet.status}\n`);
  const failed = results.flatMap((r) => r.failures);
  if (failed.length > 0) throw new NumakitError(`restore incomplete: ${failed.join('; ')}`);
  return 0;
}

async function run(args: string[], ctx: Context): Promise<number> {
  if (args[0] === 'restore') return restore(args.slice(1), ctx);
  const cfg = await agentConfig(args);
  if (!cfg.advise) {
    requireRealRoot(ctx.root, 'agent');
    if (process.getuid?.() !== 0) throw new NumakitError('agent: needs root to change other processes and kernel.numa_balancing (or use --advise)');
  }
  const [{ runAgent }, { nativeOps }] = await Promise.all([import('../../agent/run.js'), import('../../agent/ops.js')]);
  const metrics = cfg.metrics === null ? null : await (await import('../../agent/metrics.js')).startMetrics(cfg.metrics);
  const log = (l: string) => ctx.out(`${l}\n`);
  const what = { pid: process.pid, intervalSeconds: cfg.intervalMs / 1000, tune: cfg.tune, strategy: cfg.strategy, advise: cfg.advise, metrics: metrics?.address ?? null };
  // Printed once the baseline sample is taken: from here, a misplaced process is acted on within an interval.
  const onReady = () => log(cfg.logFormat === 'json'
    ? JSON.stringify({ time: new Date().toISOString(), event: 'ready', ...what })
    : `numakit agent ready: pid ${what.pid}, every ${what.intervalSeconds}s, tune ${what.tune}, strategy ${what.strategy}${cfg.advise ? ', advise only' : ''}${metrics ? `, metrics on http://${metrics.address}/metrics` : ''}`);
  const ops = await nativeOps(ctx.root);
  // Load koffi now, not at the first move: "ready" then means ready to act (a cold load takes seconds in a slow VM).
  if (!cfg.advise) ops.getAffinity(process.pid);
  try {
    return await runAgent(cfg, { root: ctx.root, sys: openSystem(ctx.root), ops, log, signals: process, pageSize: readPageSize(ctx.root), metrics, onReady });
  } finally {
    await metrics?.close();
  }
}

const cmd: Command = { summary: 'placement daemon: keeps busy processes next to their memory; restores all it changed', usage, run };
export default cmd;
