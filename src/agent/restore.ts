// Putting back what the agent changed: each journaled thread's affinity (when that very thread,
// same id and start time, still exists) and kernel.numa_balancing (through apply's undo, the
// same code `numakit rollback` runs). A page move the agent was in the middle of is said and
// marked interrupted (memory is not moved back). Used on SIGINT/SIGTERM, at start-up for a set
// left by an agent that was SIGKILLed, and by `numakit agent restore` (the systemd unit's
// ExecStopPost).
import { parseCpuList } from '../model/cpuset.js';
import { threadsToUndo, type ChangeSet, type PageMoveEntry, type ThreadAffinityEntry } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import { acquireLock, isRunning, saveChangeSet, sweepJournal } from '../actuate/journal.js';
import { undoChangeSet } from '../actuate/rollback.js';
import type { System } from '../actuate/system.js';
import { AGENT_SOURCE } from './journal.js';
import type { ThreadOps } from './ops.js';
import { readCmdlineArgs } from '../sysfs/proc_list.js';
import { readProcStat } from '../sysfs/proc_task_stat.js';
import { REAL_ROOT, type SysRoot } from '../sysfs/root.js';

export interface RestoreResult {
  readonly changeSet: ChangeSet;
  /** Threads whose affinity was put back. */
  readonly threads: number;
  /** Journaled threads that had exited (nothing to put back). */
  readonly gone: number;
  /** sysctl labels put back. */
  readonly sysctls: string[];
  readonly failures: string[];
  /** The first journal write that failed (what was restored is back all the same). */
  readonly journalError?: string;
}

export interface RestoreOptions {
  readonly stateDir: string;
  readonly ops: Pick<ThreadOps, 'threadStart' | 'getAffinity' | 'setAffinity'>;
  readonly log?: (line: string) => void;
  /** Corrupt journal files set aside, one line each. */
  readonly warn?: (line: string) => void;
}

type Outcome = 'restored' | 'gone' | string;

function restoreThread(e: ThreadAffinityEntry, ops: RestoreOptions['ops']): Outcome {
  if (ops.threadStart(e.pid, e.tid) !== e.start) return 'gone';
  const old = parseCpuList(e.old);
  try {
    ops.setAffinity(e.tid, old);
    const now = ops.getAffinity(e.tid);
    if (now.join(',') !== old.join(','))
      return `thread ${e.tid} of pid ${e.pid} (${e.comm}): set CPUs ${e.old} but it has ${now.join(',')}`;
    return 'restored';
  } catch (err) {
    if ((err as { code?: string }).code === 'ESRCH') return 'gone';
    return `thread ${e.tid} of pid ${e.pid} (${e.comm}): ${(err as Error).message}`;
  }
}

const MiB = (b: number) => `${Math.round(b / 1048576)} MiB`;

/** A move the agent did not finish (it was killed): said, and marked; its pages stay where they are. */
function interrupted(m: PageMoveEntry, log: RestoreOptions['log']): PageMoveEntry {
  log?.(
    `pid ${m.pid} (${m.comm}${m.cgroup ? `, cgroup ${m.cgroup}` : ''}): its move from node ${m.from.join(',')} to ${m.to.join(',')} was interrupted after ${MiB(m.movedBytes)} of ${MiB(m.plannedBytes)}; the pages stay where they are`,
  );
  return { ...m, state: 'interrupted' };
}

/**
 * Restores one agent change set: every affinity and value first, then the lines that say so and
 * one journal write of the outcome (what a stop waits for is the putting back). An interrupted
 * restore runs again as a whole: a thread or a value already back is only recorded.
 */
export function restoreAgentSet(sys: System, cs: ChangeSet, opts: RestoreOptions): RestoreResult {
  const said: string[] = [];
  const say = (line: string) => void said.push(line);
  let threads = [...(cs.threads ?? [])];
  const failures: string[] = [];
  let restored = 0;
  let gone = 0;
  for (const e of threadsToUndo(cs).reverse()) {
    const outcome = restoreThread(e, opts.ops);
    if (outcome !== 'restored' && outcome !== 'gone') {
      failures.push(outcome);
      continue;
    }
    if (outcome === 'restored') restored++;
    else gone++;
    threads = threads.map((t) => (t === e ? { ...t, state: 'restored' as const } : t));
  }
  if (restored > 0) say(`restored the CPU affinity of ${restored} thread(s)${gone > 0 ? ` (${gone} had exited)` : ''}`);
  const moves = cs.moves?.map((m) => (m.state === 'moving' ? interrupted(m, say) : m));
  const undo = undoChangeSet(
    sys,
    { ...cs, threads, ...(moves ? { moves } : {}) },
    { stateDir: opts.stateDir, log: say, journalEachStep: false },
  );
  for (const line of said) opts.log?.(line);
  let final = undo.changeSet;
  let journalError = undo.journalError;
  if (failures.length > 0) {
    final = {
      ...final,
      status: 'rollback-incomplete',
      error: `still changed: ${[...failures, ...undo.failures].join('; ')}`,
    };
    try {
      saveChangeSet(opts.stateDir, final);
    } catch (e) {
      journalError ??= (e as Error).message;
    }
  }
  return {
    changeSet: final,
    threads: restored,
    gone,
    sysctls: undo.restored,
    failures: [...failures, ...undo.failures],
    ...(journalError === undefined ? {} : { journalError }),
  };
}

/**
 * True when the agent that wrote the set still runs: its pid is alive, not a zombie (killed but
 * not yet reaped by its parent), and still a numakit agent (not a reused pid).
 */
export function agentRunning(cs: ChangeSet, root: SysRoot = REAL_ROOT): boolean {
  if (!isRunning(cs)) return false;
  const stat = readProcStat(root, cs.pid);
  if (stat === null) return false;
  return stat.state !== 'Z' && isAgentCommand(readCmdlineArgs(root, cs.pid) ?? []);
}

/**
 * numakit itself as an argv element: the single executable (numakit, numakit-linux-ARCH), the
 * npm bundle (numakit.cjs, or the `numakit` bin link node was started with) or the CLI's entry
 * (dist/cli/bin.js, src/cli/bin.ts).
 */
const NUMAKIT_ENTRY = /(?:^|\/)(?:numakit(?:-linux-[\w]+)?|numakit\.c?js|cli\/bin\.[jt]s)$/;

/**
 * True for argv of `numakit agent ...`: an element that is numakit itself whose command (the
 * first element after it that is not a global option or its value) is `agent`. A substring
 * anywhere on the command line is not enough: `vim agent.yaml` or a program named my-agent is
 * another program on a reused pid.
 */
export function isAgentCommand(argv: readonly string[]): boolean {
  let i = argv.findIndex((a) => NUMAKIT_ENTRY.test(a)) + 1;
  if (i === 0) return false;
  for (; i < argv.length && argv[i]!.startsWith('-'); i++) if (argv[i] === '--root' || argv[i] === '--example') i++;
  return argv[i] === 'agent';
}

/** An agent change set with something still to put back. */
export function isAgentLeftover(cs: ChangeSet): boolean {
  // A move in progress when its agent died is said (and marked interrupted) by a restore.
  return (
    cs.source === AGENT_SOURCE &&
    (threadsToUndo(cs).length > 0 ||
      cs.entries.some((e) => e.state !== 'restored') ||
      (cs.moves ?? []).some((m) => m.state === 'moving'))
  );
}

/** Agent change sets with something to restore; throws when an agent that wrote one is still running. */
export function pendingAgentSets(stateDir: string, warn?: (line: string) => void): ChangeSet[] {
  const sets = sweepJournal(stateDir, warn).filter(isAgentLeftover);
  const live = sets.find((cs) => agentRunning(cs));
  if (live !== undefined)
    throw new NumakitError(`numakit agent (pid ${live.pid}) is running: stop it (SIGTERM restores everything) instead`);
  return sets;
}

/** Restores every agent set left behind (SIGKILL, crash), under the journal lock. */
export function restoreLeftovers(sys: System, opts: RestoreOptions): RestoreResult[] {
  const release = acquireLock(opts.stateDir);
  try {
    return pendingAgentSets(opts.stateDir, opts.warn).map((cs) => restoreAgentSet(sys, cs, opts));
  } finally {
    release();
  }
}
