// Carrying out one move decision: every thread's affinity (journaled first; threads born while
// we set them inherit from their creator, and a second look catches any born before), then
// migrate_pages. ESRCH (exited), EPERM, EINVAL, ENOMEM and partial migrations become outcomes,
// never exceptions: the loop logs them and cools the process down. A failed action is not left
// half done: the threads it had bound get their affinity of before it back (a process bound
// next to memory that did not follow would run further from its memory than before).
import type { Placement } from '../policy/agent/types.js';
import type { AgentJournal, ThreadChange } from './journal.js';
import type { ThreadOps } from './ops.js';

export type ActOutcome =
  | { readonly kind: 'moved'; readonly threads: number; readonly bytes: number; readonly pages: number; readonly migrateMs: number }
  | { readonly kind: 'partial'; readonly threads: number; readonly bytes: number; readonly pages: number; readonly notMoved: number; readonly migrateMs: number }
  | { readonly kind: 'gone'; readonly threads: number; readonly step: string }
  | { readonly kind: 'failed'; readonly threads: number; readonly code: string; readonly message: string; readonly putBack?: PutBack };

/** What a failed action undid: threads given their affinity of before it, and those it could not. */
export interface PutBack {
  readonly threads: number;
  readonly failures: readonly string[];
}

/** A thread this action set: its start time and its affinity before the action. */
interface SetThread {
  readonly start: number;
  readonly old: readonly number[];
}

export interface ActDeps {
  readonly ops: ThreadOps;
  /** null with --advise (never acts) or in tests of the pure parts. */
  readonly journal: AgentJournal;
  readonly pageSize: number;
}

const codeOf = (e: unknown) => (e as { code?: unknown }).code;
const errCode = (e: unknown) => (typeof codeOf(e) === 'string' ? (codeOf(e) as string) : 'ERROR');

/** Sets the affinity of every thread not yet done; returns the threads set, or an outcome to stop on. */
function setThreads(pid: number, cpus: readonly number[], done: Map<number, SetThread>, d: ActDeps): ActOutcome | null {
  const threads = d.ops.threads(pid);
  if (threads === null) return { kind: 'gone', threads: done.size, step: 'listing its threads' };
  const todo: ThreadChange[] = [];
  for (const t of threads) {
    if (done.get(t.tid)?.start === t.start) continue;
    try {
      todo.push({ pid, tid: t.tid, start: t.start, comm: t.comm, old: d.ops.getAffinity(t.tid) });
    } catch (e) {
      if (errCode(e) !== 'ESRCH') return { kind: 'failed', threads: done.size, code: errCode(e), message: (e as Error).message };
    }
  }
  if (todo.length === 0) return null;
  d.journal.beforeAffinity(todo, cpus);
  const set: { tid: number; start: number }[] = [];
  let failure: ActOutcome | null = null;
  for (const t of todo) {
    try {
      d.ops.setAffinity(t.tid, cpus);
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

function migrate(pid: number, pl: Placement, threads: number, d: ActDeps): ActOutcome {
  if (pl.moveBytes === 0) return { kind: 'moved', threads, bytes: 0, pages: 0, migrateMs: 0 };
  let notMoved: number;
  const t0 = performance.now();
  try {
    notMoved = d.ops.migratePages(pid, pl.moveFrom, pl.nodes);
  } catch (e) {
    if (errCode(e) === 'ESRCH') return { kind: 'gone', threads, step: 'migrating its pages' };
    return { kind: 'failed', threads, code: errCode(e), message: (e as Error).message };
  }
  // The kernel's copy time, reported: on 6.1 each page costs a TLB shootdown on the CPUs running the process.
  const migrateMs = Math.round(performance.now() - t0);
  const pages = Math.round(pl.moveBytes / d.pageSize);
  const moved = Math.max(0, pages - notMoved);
  if (notMoved > 0) return { kind: 'partial', threads, bytes: moved * d.pageSize, pages: moved, notMoved, migrateMs };
  return { kind: 'moved', threads, bytes: pl.moveBytes, pages, migrateMs };
}

export function actOn(pid: number, pl: Placement, d: ActDeps): ActOutcome {
  const done = new Map<number, SetThread>();
  const o = bindAndMigrate(pid, pl, d, done);
  return o.kind === 'failed' && done.size > 0 ? { ...o, putBack: putBack(pid, done, d) } : o;
}

/** Gives the threads this action set their affinity of before it, then journals that. */
function putBack(pid: number, done: ReadonlyMap<number, SetThread>, d: ActDeps): PutBack {
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

function bindAndMigrate(pid: number, pl: Placement, d: ActDeps, done: Map<number, SetThread>): ActOutcome {
  if (pl.cpus !== null) {
    for (let pass = 0; pass < 2; pass++) {
      const stop = setThreads(pid, pl.cpus, done, d);
      if (stop !== null) return stop;
    }
    if (done.size === 0 && d.ops.threads(pid) === null) return { kind: 'gone', threads: 0, step: 'setting its affinity' };
  }
  return migrate(pid, pl, done.size, d);
}
