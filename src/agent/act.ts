// Carrying out one move decision: every thread's affinity (journaled first; threads born while
// we set them inherit from their creator, and a second look catches any born before), then the
// memory, moved in paced batches (mover.ts) and journaled as it goes. ESRCH (exited), EPERM,
// EINVAL, ENOMEM on the target, pages that would not move and a stop by signal become
// outcomes, never exceptions: the loop logs them and cools the process down. A failed action
// is not left half done: the threads it had bound get their affinity of before it back (a
// process bound next to memory that did not follow would run further from its memory than
// before); so does a move that ran out of memory on the target before moving anything.
import type { PageMoveEntry } from '../model/change.js';
import type { Placement } from '../policy/agent/types.js';
import type { AgentJournal, ThreadChange } from './journal.js';
import { movePaced, type MoveDeps, type MoveEnd, type MoveResult } from './mover.js';
import type { ThreadOps } from './ops.js';

interface Moved {
  readonly threads: number;
  readonly bytes: number;
  readonly pages: number;
  /** Wall time of the move, pauses included. */
  readonly migrateMs: number;
  readonly batches: number;
}

export type ActOutcome =
  | ({ readonly kind: 'moved' } & Moved)
  | ({ readonly kind: 'partial'; readonly notMoved: number; readonly why: string } & Moved)
  | ({ readonly kind: 'stopped'; readonly plannedBytes: number } & Moved)
  | { readonly kind: 'gone'; readonly threads: number; readonly step: string; readonly bytes?: number }
  | {
      readonly kind: 'failed';
      readonly threads: number;
      readonly code: string;
      readonly message: string;
      readonly bytes?: number;
      readonly putBack?: PutBack;
    };

/** What a failed action undid: threads given their affinity of before it, and those it could not. */
export interface PutBack {
  readonly threads: number;
  readonly failures: readonly string[];
}

/** A thread this action set: its start time and its affinity before the action. */
export interface SetThread {
  readonly start: number;
  readonly old: readonly number[];
}

export interface ActDeps {
  readonly ops: ThreadOps;
  readonly journal: AgentJournal;
  /** Clock, pacing and the stop signal of the mover. */
  readonly move: Omit<MoveDeps, 'ops' | 'progress'>;
  /** Wall clock for journal times (tests); default Date.now. */
  readonly wallClock?: () => number;
  /** The cgroup the process is moved as part of (--unit cgroup). */
  readonly cgroup?: string;
  /** The agent's own thread that runs the mover (its pid: the main thread). */
  readonly selfTid?: number;
}

const codeOf = (e: unknown) => (e as { code?: unknown }).code;
const errCode = (e: unknown) => (typeof codeOf(e) === 'string' ? (codeOf(e) as string) : 'ERROR');

/** Sets the affinity of every thread not yet done (each to cpusOf(tid)); returns an outcome to stop on, or null. */
export function setThreads(
  pid: number,
  cpusOf: (tid: number) => readonly number[],
  done: Map<number, SetThread>,
  d: ActDeps,
): ActOutcome | null {
  const threads = d.ops.threads(pid);
  if (threads === null) return { kind: 'gone', threads: done.size, step: 'listing its threads' };
  const todo: ThreadChange[] = [];
  for (const t of threads) {
    if (done.get(t.tid)?.start === t.start) continue;
    try {
      todo.push({ pid, tid: t.tid, start: t.start, comm: t.comm, old: d.ops.getAffinity(t.tid), cpus: cpusOf(t.tid) });
    } catch (e) {
      if (errCode(e) !== 'ESRCH')
        return { kind: 'failed', threads: done.size, code: errCode(e), message: (e as Error).message };
    }
  }
  if (todo.length === 0) return null;
  d.journal.beforeAffinity(todo);
  const set: { tid: number; start: number }[] = [];
  let failure: ActOutcome | null = null;
  for (const t of todo) {
    try {
      d.ops.setAffinity(t.tid, t.cpus);
      set.push(t);
      done.set(t.tid, { start: t.start, old: t.old });
    } catch (e) {
      if (errCode(e) === 'ESRCH') continue; // that thread exited: nothing changed
      failure = { kind: 'failed', threads: done.size, code: errCode(e), message: (e as Error).message };
      break;
    }
  }
  d.journal.afterAffinity(set);
  return failure;
}

/**
 * Runs the agent's mover thread on the CPUs the process's threads were just given (the target
 * nodes) until the returned function puts it back. Unmapping a page for migration costs a TLB
 * shootdown on every CPU where the process runs; from one of those CPUs, with the process's
 * threads switched out meanwhile, the flush is local, and on the target node the copy writes
 * local memory. Best effort: a cpuset that does not allow those CPUs leaves the mover where it is.
 */
function moverOnTarget(d: ActDeps, cpus: readonly number[] | null): () => void {
  const self = d.selfTid;
  if (self === undefined || cpus === null || cpus.length === 0) return () => {};
  let old: number[];
  try {
    old = d.ops.getAffinity(self);
    d.ops.setAffinity(self, cpus);
  } catch {
    return () => {};
  }
  return () => {
    try {
      d.ops.setAffinity(self, old);
    } catch {
      // the agent's own affinity: nothing else depends on it
    }
  };
}

const STATE: Record<MoveEnd, PageMoveEntry['state']> = {
  done: 'done',
  stopped: 'stopped',
  full: 'full',
  gone: 'gone',
  failed: 'failed',
};

function outcomeOf(r: MoveResult, pl: Placement, threads: number): ActOutcome {
  const base = { threads, bytes: r.movedBytes, pages: r.movedPages, migrateMs: r.ms, batches: r.batches };
  switch (r.end) {
    case 'done':
      return r.notMoved > 0
        ? { kind: 'partial', ...base, notMoved: r.notMoved, why: 'busy or shared' }
        : { kind: 'moved', ...base };
    case 'full': {
      const why = `node ${pl.nodes.join(',')} ran out of free memory (ENOMEM)`;
      // Nothing moved: the threads would sit next to none of their memory; a failure, put back.
      if (r.movedBytes === 0)
        return { kind: 'failed', threads, code: 'ENOMEM', message: r.message ?? `move_pages: ${why}`, bytes: 0 };
      return { kind: 'partial', ...base, notMoved: r.notMoved, why };
    }
    case 'stopped':
      return { kind: 'stopped', ...base, plannedBytes: r.plannedBytes };
    case 'gone':
      return { kind: 'gone', threads, step: 'migrating its pages', bytes: r.movedBytes };
    case 'failed':
      return {
        kind: 'failed',
        threads,
        code: r.code ?? 'ERROR',
        message: r.message ?? 'move_pages failed',
        bytes: r.movedBytes,
      };
  }
}

/** The memory part, paced (mover.ts), journaled as it goes. */
export async function moveMemory(
  pid: number,
  comm: string,
  pl: Placement,
  threads: number,
  d: ActDeps,
): Promise<ActOutcome> {
  if (pl.moveBytes === 0) return { kind: 'moved', threads, bytes: 0, pages: 0, migrateMs: 0, batches: 0 };
  const start = d.ops.threadStart(pid, pid);
  if (start === null) return { kind: 'gone', threads, step: 'migrating its pages' };
  const now = () => new Date(d.wallClock?.() ?? Date.now());
  d.journal.moveStarted(
    {
      pid,
      start,
      comm,
      from: pl.moveFrom,
      to: pl.nodes,
      plannedBytes: pl.moveBytes,
      ...(d.cgroup ? { cgroup: d.cgroup } : {}),
    },
    now(),
  );
  const back = moverOnTarget(d, pl.cpus);
  let r: MoveResult;
  try {
    r = await movePaced(pid, pl.moveFrom, pl.nodes, {
      ...d.move,
      ops: d.ops,
      progress: (moved) => d.journal.moveUpdate(pid, moved, 'moving', now()),
    });
  } finally {
    back();
  }
  const o = outcomeOf(r, pl, threads);
  if (r.end === 'stopped') d.journal.moveStopped(pid, r.movedBytes, now());
  else d.journal.moveUpdate(pid, r.movedBytes, o.kind === 'partial' ? 'partial' : STATE[r.end], now());
  return o;
}

/** Gives the threads this action set their affinity of before it, then journals that. */
export function putBack(pid: number, done: ReadonlyMap<number, SetThread>, d: ActDeps): PutBack {
  const back: { tid: number; start: number; cpus: readonly number[] }[] = [];
  const failures: string[] = [];
  for (const [tid, t] of done) {
    try {
      d.ops.setAffinity(tid, t.old);
      back.push({ tid, start: t.start, cpus: t.old });
    } catch (e) {
      if (errCode(e) !== 'ESRCH') failures.push(`thread ${tid} of pid ${pid}: ${(e as Error).message}`);
    }
  }
  d.journal.revertAffinity(back);
  return { threads: back.length, failures };
}

/** Binds every thread of pid where the placement says (hot and cold apart with a split); null when done. */
export function bind(pid: number, pl: Placement, d: ActDeps, done: Map<number, SetThread>): ActOutcome | null {
  if (pl.cpus === null) return null;
  const hot = new Set(pl.split?.hotTids ?? []);
  const cpus = pl.cpus;
  const cpusOf = pl.split === undefined ? () => cpus : (tid: number) => (hot.has(tid) ? cpus : pl.split!.coldCpus);
  for (let pass = 0; pass < 2; pass++) {
    const stop = setThreads(pid, cpusOf, done, d);
    if (stop !== null) return stop;
  }
  return done.size === 0 && d.ops.threads(pid) === null
    ? { kind: 'gone', threads: 0, step: 'setting its affinity' }
    : null;
}

async function bindAndMove(
  pid: number,
  comm: string,
  pl: Placement,
  d: ActDeps,
  done: Map<number, SetThread>,
): Promise<ActOutcome> {
  return bind(pid, pl, d, done) ?? moveMemory(pid, comm, pl, done.size, d);
}

export async function actOn(pid: number, comm: string, pl: Placement, d: ActDeps): Promise<ActOutcome> {
  const done = new Map<number, SetThread>();
  const o = await bindAndMove(pid, comm, pl, d, done);
  return o.kind === 'failed' && done.size > 0 ? { ...o, putBack: putBack(pid, done, d) } : o;
}
