// The agent's life: restore what a killed predecessor left, journal and switch off AutoNUMA
// (--numa-balancing off; its memory-tiering mode stays on: policy/agent/balancing.ts), take a baseline, then a pass every --interval until SIGINT or SIGTERM
// (which also stops a page move after its current batch; the time between passes grows up to --max-interval while they find nothing to do), then put back everything it changed. --advise changes nothing; --once makes one pass over one
// interval and leaves its changes in place (journaled: `numakit agent restore` undoes them).
import { acquireLock, JournalWriteError, saveChangeSet } from '../actuate/journal.js';
import { failureLine, NumakitError } from '../model/errors.js';
import type { System } from '../actuate/system.js';
import type { SysRoot } from '../sysfs/root.js';
import { maxIntervalOf, type AgentConfig } from './config.js';
import { monotonicMs, sleepUnless } from './clock.js';
import { balancingWhileRunning } from '../policy/agent/balancing.js';
import { nextIntervalMs, quietPass } from '../policy/agent/interval.js';
import { readNumaBalancing } from '../discover/access_locality.js';
import { AgentJournal } from './journal.js';
import { rotateAgentSets } from './journal_rotate.js';
import type { AgentMetricsSink } from './metrics_sink.js';
import type { MoveClock } from './mover.js';
import type { ThreadOps } from './ops.js';
import { AgentPass } from './pass.js';
import { pendingAgentSets, restoreAgentSet } from './restore.js';
import { ProcessWatch } from './watch.js';
import { nextCollectMs } from '../policy/agent/watch.js';
import { type EventBatch, openProcessEvents, type ProcessEventSource } from './proc_events.js';

/** The part of `process` the agent listens to (an EventEmitter in tests). */
export interface SignalSource {
  on(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', fn: () => void): unknown;
  off(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', fn: () => void): unknown;
}

/**
 * SIGHUP's line. Its default action ended the agent without putting anything back; now it
 * re-reads --metrics-token-file and changes nothing else: settings (--config too) are read at
 * start, and the log goes to stdout, so there is nothing to reopen.
 */
export function hangupLine(metrics: AgentMetricsSink | null | undefined): string {
  const what = metrics?.reload?.() ?? 'nothing to reload';
  return `SIGHUP: ${what}; settings are read only at start (restart the agent to change them)`;
}

export interface RunDeps {
  readonly root: SysRoot;
  readonly sys: System;
  readonly ops: ThreadOps;
  readonly log: (line: string) => void;
  readonly signals: SignalSource;
  readonly pageSize: number;
  /** The pass clock (tests); default monotonicMs (clock.ts: a wall-clock step changes nothing). */
  readonly now?: () => number;
  readonly selfPid?: number;
  readonly metrics?: AgentMetricsSink | null;
  /** The mover's clock (tests); default the real one. */
  readonly clock?: MoveClock;
  /** The wait between passes (tests pass a fake one); default a timer that SIGTERM cuts short. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called once the baseline is taken (tests and the CLI's readiness line). */
  readonly onReady?: () => void;
  /**
   * The process events the watch waits on (tests pass a fake source); default the kernel's proc
   * connector on the live system, none on a snapshot or fixture (nothing starts there).
   */
  readonly events?: ((collectMs: number) => ProcessEventSource) | null;
  /** Paces a full garbage collection after each pass (src/runtime/heap_pace.ts); none in tests unless given. */
  readonly heap?: { afterPass(nowMs: number): unknown } | null;
}

/**
 * The first pass measures CPU over a short window, so a misplaced process waits at most this, not
 * a whole interval; so does a pass after one that took a fresh baseline of a process.
 */
export const FIRST_WINDOW_MS = 1000;

function startJournal(cfg: AgentConfig, deps: RunDeps, now: number): AgentJournal {
  const release = acquireLock(cfg.stateDir);
  try {
    for (const cs of pendingAgentSets(cfg.stateDir, deps.log)) {
      const r = restoreAgentSet(deps.sys, cs, { stateDir: cfg.stateDir, ops: deps.ops, log: deps.log });
      deps.log(
        `restored change set ${r.changeSet.id} left by an agent that did not exit cleanly: ${r.changeSet.status}`,
      );
    }
    rotateAgentSets(cfg.stateDir);
    return new AgentJournal(cfg.stateDir, new Date(now));
  } finally {
    release();
  }
}

/** Runs the agent until a signal (or one pass with --once); resolves to the exit code. */
export async function runAgent(cfg: AgentConfig, deps: RunDeps): Promise<number> {
  const now = deps.now ?? monotonicMs;
  const sleep = deps.sleep ?? sleepUnless;
  const stop = new AbortController();
  let signalled: { name: string; at: number } | null = null;
  const signalHandler = (name: string) => () => {
    signalled ??= { name, at: performance.now() };
    stop.abort();
  };
  const onInt = signalHandler('SIGINT');
  const onTerm = signalHandler('SIGTERM');
  const onHup = () => deps.log(hangupLine(deps.metrics));
  deps.signals.on('SIGINT', onInt);
  deps.signals.on('SIGTERM', onTerm);
  deps.signals.on('SIGHUP', onHup);
  let journal: AgentJournal | null = null;
  let watch: Watching | null = null;
  let failed = false;
  try {
    journal = cfg.advise ? null : startJournal(cfg, deps, now());
    const balancing = balancingWhileRunning(readNumaBalancing(deps.root), cfg.numaBalancing);
    if (journal !== null && balancing.write !== null && !cfg.once) {
      const to = String(balancing.write);
      const old = journal.setSysctl(deps.sys, 'kernel.numa_balancing', to, 'numakit agent --numa-balancing off');
      if (old !== null) deps.log(`kernel.numa_balancing ${old} -> ${to} while the agent runs`);
    }
    if (balancing.tiering)
      deps.log(
        `kernel.numa_balancing has memory tiering on (2): promotion from memory-only nodes is left to the kernel${cfg.promote ? ' (--promote does nothing)' : ''}`,
      );
    const pass = new AgentPass(balancing.tiering ? { ...cfg, promote: false } : cfg, {
      ...deps,
      journal,
      selfPid: deps.selfPid ?? process.pid,
      signal: stop.signal,
    });
    await pass.run(now());
    deps.heap?.afterPass(now());
    watch = startWatch(cfg, deps, now);
    pass.watching = watch !== null;
    deps.onReady?.();
    // The sleep between passes: --interval, stretched while passes find nothing to do (policy/agent/interval.ts).
    const stretch = { minMs: cfg.intervalMs, maxMs: cfg.once ? cfg.intervalMs : maxIntervalOf(cfg) };
    let interval: number | null = null;
    for (let first = true; !stop.signal.aborted; first = false) {
      // A short first window only for a process to judge over it (AgentPass.foundNothing).
      const short = ((first && !pass.foundNothing) || pass.wantsShortWindow) && !cfg.once;
      const ms = short ? Math.min(cfg.intervalMs, FIRST_WINDOW_MS) : (interval ?? cfg.intervalMs);
      const woken = await sleepWatched(ms, { sleep, signal: stop.signal, watch, everyMs: cfg.watchMs, now });
      if (stop.signal.aborted) break;
      // A new process at --min-rss: judged from now (a pass that takes its baseline, then a short window).
      if (woken) interval = null;
      try {
        interval = nextIntervalMs(interval, quietPass(await pass.run(now()), pass.baselines), stretch);
        if (woken) for (const [pid, cpus] of pass.pinned) watch?.watch.followAffinity(pid, cpus);
      } catch (e) {
        // Without a journal the agent may not act: it stops and puts back what it changed.
        if (e instanceof JournalWriteError)
          throw new NumakitError(`agent stopped: ${e.message}; it puts back what it changed before it exits`);
        if (cfg.once) throw e;
        // Said in one line (its stack under NUMAKIT_DEBUG=1) and counted; the next pass runs as usual.
        deps.metrics?.passFailed();
        deps.log(`${failureLine('a pass', e, { stack: Boolean(process.env.NUMAKIT_DEBUG) })} (the agent goes on)`);
      }
      // A stopped pass goes straight to the restore (a full collection can take a while).
      if (!stop.signal.aborted) deps.heap?.afterPass(now());
      if (cfg.once) break;
    }
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    deps.signals.off('SIGINT', onInt);
    deps.signals.off('SIGTERM', onTerm);
    deps.signals.off('SIGHUP', onHup);
    watch?.events.close();
    if (journal !== null) finish(cfg, deps, journal, failed, signalled);
  }
  return 0;
}

/** The watch: the process events and what it makes of them. */
export interface Watching {
  readonly events: Pick<ProcessEventSource, 'wait' | 'collectFor' | 'close'>;
  readonly watch: Pick<ProcessWatch, 'see' | 'following' | 'lastCounted' | 'followAffinity'>;
  /** The window the next batch is collected for, and when the last batch came (policy/agent/watch.ts nextCollectMs). */
  collectMs: number;
  lastBatchAt: number;
}

/**
 * The watch between passes (none with --watch 0 or --once, on a snapshot, or without the
 * process events: the line says why, and the passes find new processes).
 */
function startWatch(cfg: AgentConfig, deps: RunDeps, now: () => number): Watching | null {
  if (cfg.watchMs <= 0 || cfg.once) return null;
  const open = deps.events !== undefined ? deps.events : deps.root.isReal ? openProcessEvents : null;
  if (open === null) return null;
  let events: ProcessEventSource;
  try {
    events = open(cfg.watchMs);
  } catch (e) {
    deps.log(watchOffLine(cfg, (e as Error).message));
    return null;
  }
  const watch = new ProcessWatch(deps.root, { ...cfg, pageSize: deps.pageSize, selfPid: deps.selfPid ?? process.pid });
  watch.see(null, now());
  return { events, watch, collectMs: cfg.watchMs, lastBatchAt: now() };
}

/**
 * Why the watch is off, and what that costs: the agent falls back to its passes, so a new process
 * waits for the next one (up to --max-interval after it starts) instead of about --watch.
 */
export function watchOffLine(cfg: Pick<AgentConfig, 'intervalMs' | 'maxIntervalMs' | 'watchMs'>, why: string): string {
  const s = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  return `the watch between passes is off: cannot subscribe to the kernel's process events (${why}; it needs CAP_NET_ADMIN and AF_NETLINK); falling back to the passes: a new process is seen up to ${s(maxIntervalOf(cfg))} after it starts instead of about ${s(cfg.watchMs)}`;
}

/**
 * The sleep between passes, woken by the process events: it waits for new processes (no wake-up
 * while none starts) and, while it follows young ones, looks again every --watch. Resolves true
 * as soon as one is worth a pass, false at the end of the sleep.
 */
export async function sleepWatched(
  ms: number,
  o: {
    sleep: (ms: number, signal: AbortSignal) => Promise<void>;
    signal: AbortSignal;
    watch: Watching | null;
    everyMs: number;
    now: () => number;
  },
): Promise<boolean> {
  if (o.watch === null || o.everyMs <= 0) {
    await o.sleep(ms, o.signal);
    return false;
  }
  const end = o.now() + ms;
  for (let left = ms; left > 0 && !o.signal.aborted; left = end - o.now()) {
    const step = o.watch.watch.following > 0 ? Math.min(left, o.everyMs) : left;
    const batch: EventBatch = await o.watch.events.wait(step, o.signal);
    if (o.signal.aborted) return false;
    const woken = o.watch.watch.see(batch, o.now());
    if (batch !== null) pace(o.watch, o.now(), o.everyMs);
    if (woken) return true;
  }
  return false;
}

/** The next batch's window: longer while batches hold only processes dropped at their first look (churn). */
function pace(w: Watching, nowMs: number, watchMs: number): void {
  const quiet = nowMs - w.lastBatchAt > 4 * w.collectMs;
  w.collectMs = nextCollectMs(w.collectMs, { counted: w.watch.lastCounted > 0, quiet, watchMs });
  w.lastBatchAt = nowMs;
  w.events.collectFor(w.collectMs);
}

/** On exit: --once keeps its changes (status applied); otherwise everything is put back. */
function finish(
  cfg: AgentConfig,
  deps: RunDeps,
  journal: AgentJournal,
  failed: boolean,
  signalled: { name: string; at: number } | null,
): void {
  if (cfg.once && !failed) {
    saveChangeSet(cfg.stateDir, { ...journal.changeSet, status: 'applied' });
    return;
  }
  const r = restoreAgentSet(deps.sys, journal.changeSet, { stateDir: cfg.stateDir, ops: deps.ops, log: deps.log });
  // How long the stop took (a move in progress ends after its batch): what TimeoutStopSec must cover.
  const after = signalled === null ? '' : ` ${Math.round(performance.now() - signalled.at)} ms after ${signalled.name}`;
  const affinities = `${r.threads} thread affinit${r.threads === 1 ? 'y' : 'ies'}`;
  const sysctls = r.sysctls.length > 0 ? ` and ${r.sysctls.join(', ')}` : '';
  const notRestored = r.failures.length > 0 ? `; could NOT restore: ${r.failures.join('; ')}` : '';
  // A full disk: the values are back, but the set still lists them (a later restore finds them back).
  const unrecorded =
    r.journalError === undefined
      ? ''
      : `; the journal could not record it (${r.journalError}): 'numakit agent restore' will find it all back`;
  deps.log(`exit: restored ${affinities}${sysctls}${after}${notRestored}${unrecorded}`);
}
