// numakit agent [OPTIONS] | numakit agent restore: the placement daemon and its undo.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openSystem } from '../../actuate/system.js';
import { readPageSize } from '../../discover/node_stat.js';
import { NumakitError, UsageError } from '../../model/errors.js';
import { requireRealRoot } from '../../sysfs/root.js';
import { DEFAULT_AGENT, maxIntervalOf, type AgentConfig } from '../../agent/config.js';
import { AGENT_KEYS, applySettings, parseConfigFile, RUNNING, type Raw } from './agent_settings.js';
import type { Context } from '../context.js';
import { exitPromptly } from '../process_io.js';
import { stateDirOption } from '../state_dir_option.js';
import type { Command, ParsedOptions, Values, CommandModule } from '../options.js';
import { parseOptions } from '../parse_options.js';
import { requireRoot } from '../privileges.js';
import { readNamedFile } from '../../runtime/named_file.js';
import type { AgentMetrics } from '../../agent/metrics.js';

const OPTIONS = {
  ...AGENT_KEYS,
  config: {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    group: RUNNING,
    help: 'YAML file with the same keys as these options (flags win)',
  },
} as const;

const RESTORE_OPTIONS = {
  'dry-run': { type: 'boolean', help: 'list what would be put back, change nothing (no root needed)' },
  'state-dir': stateDirOption(),
} as const;

/** restore --dry-run, and restore with no journal at all: read only, nothing created. */
async function listLeftovers(stateDir: string, ctx: Context): Promise<number> {
  const { readJournal } = await import('../../actuate/journal.js');
  const { isAgentLeftover } = await import('../../agent/restore.js');
  const { renderChangeSet } = await import('../../render/changes.js');
  const sets = existsSync(join(stateDir, 'journal')) ? readJournal(stateDir).sets.filter(isAgentLeftover) : [];
  if (sets.length === 0) ctx.out('nothing to restore: no agent change set with changes left\n');
  for (const cs of sets) ctx.out(renderChangeSet(cs, false));
  return 0;
}

/** Settings from the config file (if any) then the flags. */
export async function agentConfig(args: string[]): Promise<AgentConfig> {
  return configOf(
    parseOptions({ options: OPTIONS, subcommands: { restore }, positionals: undefined }, args, 'agent')
      .values as Values<typeof OPTIONS>,
  );
}

async function configOf(values: Values<typeof OPTIONS>): Promise<AgentConfig> {
  let cfg = DEFAULT_AGENT;
  const file = values.config;
  if (file !== undefined) {
    cfg = await parseConfigFile(readNamedFile(file, { label: `--config ${file}` }), file);
  }
  const flags = Object.fromEntries(Object.entries(values).filter(([k]) => k !== 'config')) as Record<
    string,
    Raw | undefined
  >;
  const out = applySettings(cfg, flags, (k) => `agent: --${k}`);
  if (out.maxIntervalMs !== null && out.maxIntervalMs < out.intervalMs)
    throw new UsageError(
      `agent: --max-interval ${out.maxIntervalMs / 1000}s is shorter than --interval ${out.intervalMs / 1000}s`,
    );
  return out;
}

async function runRestore({ values }: ParsedOptions<typeof RESTORE_OPTIONS>, ctx: Context): Promise<number> {
  const stateDir = values['state-dir'] ?? DEFAULT_AGENT.stateDir;
  if (values['dry-run'] || !existsSync(join(stateDir, 'journal'))) return listLeftovers(stateDir, ctx);
  requireRealRoot(ctx.root, 'agent restore');
  requireRoot(
    'agent restore',
    `CAP_SYS_NICE to set other processes' CPU affinity back, /proc/sys writes and the journal in ${stateDir}`,
  );
  const { restoreLeftovers } = await import('../../agent/restore.js');
  const { nativeOps } = await import('../../agent/ops.js');
  const results = restoreLeftovers(openSystem(ctx.root), {
    stateDir,
    ops: await nativeOps(ctx.root),
    log: (l) => ctx.out(`  ${l}\n`),
    warn: (l) => ctx.err(`numakit: warning: ${l}\n`),
  });
  if (results.length === 0) ctx.out('nothing to restore: no agent change set with changes left\n');
  for (const r of results)
    ctx.out(
      `change set ${r.changeSet.id}: ${r.threads} thread affinit${r.threads === 1 ? 'y' : 'ies'} restored (${r.gone} thread(s) had exited), ${r.sysctls.length} sysctl(s); ${r.changeSet.status}\n`,
    );
  const failed = results.flatMap((r) => r.failures);
  if (failed.length > 0)
    throw new NumakitError(`restore incomplete: still changed (${failed.length}): ${failed.join('; ')}`);
  const unrecorded = results.find((r) => r.journalError !== undefined);
  if (unrecorded !== undefined)
    throw new NumakitError(`restored, but the journal could not record it (${unrecorded.journalError})`);
  return 0;
}

const restore: Command<ParsedOptions<typeof RESTORE_OPTIONS>> = {
  summary: 'put back what an agent that was killed or crashed changed',
  synopsis: ['[--dry-run] [--state-dir DIR]'],
  description: `Puts back each thread's CPU affinity and the sysctls (numa_balancing) that a numakit agent
journaled and did not restore itself (it was killed with SIGKILL, or crashed). The shipped
systemd unit runs it as ExecStopPost.`,
  options: RESTORE_OPTIONS,
  exit: {
    0: 'restored, or nothing to restore (as rollback: an empty journal is not a failure)',
    1: 'something could not be restored (the journal keeps it for another try)',
  },
  run: runRestore,
};

async function run({ values }: ParsedOptions<typeof OPTIONS>, ctx: Context): Promise<number> {
  const cfg = await configOf(values);
  await checkCanRun(cfg, ctx);
  const [{ runAgent }, { nativeOps }] = await Promise.all([import('../../agent/run.js'), import('../../agent/ops.js')]);
  const metrics = await startAgentMetrics(cfg, ctx);
  const log = (l: string) => {
    ctx.out(`${l}\n`);
    metrics?.logged(l);
  };
  const ready = readyLine(cfg, metrics);
  const systemd = await systemdNotifications(ctx);
  // Under systemd (Type=notify) the same moment is READY=1, then the watchdog pings.
  const onReady = () => {
    log(cfg.logFormat === 'json' ? logEvent('ready', ready.fields) : ready.text);
    systemd.ready(ready.text.replace(/^numakit agent ready: /, ''));
  };
  // A snapshot holds one reading of each process's CPU time: between two passes nobody uses any
  // CPU, and the agent weighs only busy processes. Said once, with where the same processes'
  // placement can be seen (CPU time since each started), instead of a silent "ready".
  if (!ctx.root.isReal) {
    const note = snapshotNote(ctx.root.label, cfg.minCpu);
    log(cfg.logFormat === 'json' ? logEvent('snapshot', { note: note.replace(/^numakit agent: /, '') }) : note);
  }
  const ops = await nativeOps(ctx.root);
  const heap = await heapPacer(ctx);
  // Load koffi now, not at the first move: "ready" then means ready to act (a cold load takes seconds in a slow VM).
  if (!cfg.advise) ops.getAffinity(process.pid);
  // Once it has put everything back and said so, the process ends at once (a stop is what a
  // supervisor waits for); with libc loaded, without Node's teardown either (native/exit_now.ts).
  if (cfg.advise) exitPromptly();
  else exitPromptly((await import('../../native/exit_now.js')).exitNow);
  try {
    return await runAgent(cfg, {
      root: ctx.root,
      sys: openSystem(ctx.root),
      ops,
      log,
      signals: process,
      pageSize: readPageSize(ctx.root),
      metrics,
      onReady,
      heap,
    });
  } finally {
    systemd.stop();
    await metrics?.close();
  }
}

/** Acting needs root on the real machine (--advise does not); --unit cgroup needs a cgroup v2 tree. */
async function checkCanRun(cfg: AgentConfig, ctx: Context): Promise<void> {
  if (!cfg.advise) {
    requireRealRoot(ctx.root, 'agent');
    requireRoot(
      'agent',
      "CAP_SYS_NICE to set other processes' CPU affinity and move their pages, /proc/sys writes for kernel.numa_balancing, and the journal; --advise needs neither",
    );
  }
  if (cfg.unit === 'cgroup' && !(await import('../../sysfs/cgroup_v2.js')).hasCgroupV2(ctx.root)) {
    throw new NumakitError(
      "agent --unit cgroup: no cgroup v2 hierarchy at /sys/fs/cgroup (each unit's memory per node comes from its memory.numa_stat); use --unit process",
    );
  }
}

/** The --metrics endpoint, started before the first pass; null without --metrics. */
async function startAgentMetrics(cfg: AgentConfig, ctx: Context): Promise<AgentMetrics | null> {
  if (cfg.metrics === null) return null;
  const { startMetrics } = await import('../../agent/metrics.js');
  return startMetrics(cfg.metrics, {
    root: ctx.root,
    tokenFile: cfg.metricsTokenFile ?? undefined,
    webConfigFile: cfg.metricsWebConfigFile ?? undefined,
    insecurePublic: cfg.metricsInsecurePublic,
    log: ctx.err,
  });
}

/** One line of --log-format json: the time, the event and its fields. */
function logEvent(event: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: new Date().toISOString(), event, ...fields });
}

/**
 * What "ready" says, as text and as the json log's fields. Printed once the baseline sample is
 * taken: from here, a misplaced process is acted on within an interval.
 */
function readyLine(cfg: AgentConfig, metrics: AgentMetrics | null): { text: string; fields: Record<string, unknown> } {
  const what = {
    pid: process.pid,
    intervalSeconds: cfg.intervalMs / 1000,
    maxIntervalSeconds: maxIntervalOf(cfg) / 1000,
    watchSeconds: cfg.once ? 0 : cfg.watchMs / 1000,
    tune: cfg.tune,
    strategy: cfg.strategy,
    advise: cfg.advise,
    metrics: metrics?.address ?? null,
  };
  const upTo =
    what.maxIntervalSeconds > what.intervalSeconds
      ? ` (up to ${what.maxIntervalSeconds}s while there is nothing to do)`
      : '';
  const watching = what.watchSeconds > 0 ? `, new processes looked at every ${what.watchSeconds}s` : '';
  const adviseOnly = cfg.advise ? ', advise only' : '';
  const metricsAt = metrics ? `, metrics on ${metrics.scheme}://${metrics.address}/metrics (${metrics.access})` : '';
  const text = `numakit agent ready: pid ${what.pid}, every ${what.intervalSeconds}s${upTo}${watching}, tune ${what.tune}, strategy ${what.strategy}${adviseOnly}${metricsAt}`;
  return { text, fields: what };
}

/**
 * One full garbage collection after a pass once the heap has grown past what it needs
 * (src/runtime/heap_pace.ts).
 */
async function heapPacer(ctx: Context): Promise<{ afterPass(nowMs: number): unknown } | null> {
  const { daemonHeapPacer } = await import('../../runtime/heap_pace.js');
  return daemonHeapPacer('agent', ctx.err);
}

/** What the agent can tell on a snapshot (`label`: "example NAME" or the --root given). */
export function snapshotNote(label: string, minCpu: number): string {
  const root = label.startsWith('example ') ? `--example ${label.slice(8)}` : `--root ${label}`;
  return `numakit agent: ${label} is a snapshot: its processes' CPU time does not move between two readings, so none is busy (--min-cpu ${minCpu}) and the agent proposes nothing; their placement, with CPU time since each started: numakit ${root} stat --procs, and numakit ${root} doctor`;
}

/**
 * READY=1, WATCHDOG=1 every half WATCHDOG_USEC and STOPPING=1 to systemd when it asked
 * (NOTIFY_SOCKET); nothing otherwise. A failed notification is a warning, once, with its count
 * at the end: the agent's work does not depend on it (systemd's timeouts decide).
 */
async function systemdNotifications(ctx: Context): Promise<{ ready: (status: string) => void; stop: () => void }> {
  if (!process.env.NOTIFY_SOCKET) return { ready: () => {}, stop: () => {} };
  const { openNotifier, watchdogPingMs } = await import('../../native/sd_notify.js');
  let failed = 0;
  const warn = (e: unknown) => {
    if (failed++ === 0) ctx.err(`numakit: warning: agent: cannot notify systemd: ${(e as Error).message}\n`);
    if (process.env.NUMAKIT_DEBUG === '1') ctx.err(`${(e as Error).stack}\n`);
  };
  let notifier: ReturnType<typeof openNotifier> = null;
  try {
    notifier = openNotifier();
  } catch (e) {
    warn(e);
  }
  const send = (state: string) => {
    try {
      notifier?.send(state);
    } catch (e) {
      warn(e);
    }
  };
  const pingMs = watchdogPingMs(process.env, process.pid);
  let watchdog: NodeJS.Timeout | undefined;
  return {
    ready(status) {
      send(`READY=1\nSTATUS=${status}`);
      if (pingMs !== null) watchdog = setInterval(() => send('WATCHDOG=1'), pingMs).unref();
    },
    stop() {
      clearInterval(watchdog);
      send('STOPPING=1');
      notifier?.close();
      if (failed > 1) ctx.err(`numakit: warning: agent: ${failed} notifications to systemd failed\n`);
    },
  };
}

const cmd: CommandModule<ParsedOptions<typeof OPTIONS>> = {
  synopsis: ['[OPTIONS]', 'restore [RESTORE OPTIONS]'],
  description: `A placement daemon: every interval it samples processes, and for each busy, large one it picks
the node set that maximises the share of its memory local to its threads (given its CPU need,
each node's idle CPUs and free memory, and distances), then binds its threads there and/or
migrates its pages. Everything it changes (each thread's previous affinity, numa_balancing) is
journaled before the change and put back on SIGINT/SIGTERM; after a SIGKILL or crash,
'numakit agent restore' puts it back (the shipped systemd unit runs it as ExecStopPost).
A process that was under --min-rss or idle at its last read is read again one pass in 4 (at
its turn, by PID), so one that grows or gets busy is seen at most 4 passes later; a new
process is read at the first two passes after it starts. With --watch (e.g. 1s; off by
default), between passes a watch reads /proc/loadavg that often; when processes were created
it follows them, and one that is large, busy and old enough gets a pass at once. A busy
process younger than --min-age DUR (off by default) is not moved yet.

Durations: 5s, 500ms, 2m, at most 576h. Needs root (CAP_SYS_NICE and /proc/sys writes) unless --advise.`,
  options: OPTIONS,
  subcommands: { restore },
  exit: { 1: 'not root (without --advise), or a change could not be made or restored' },
  run,
};
export default cmd;
