// Carrying out the move of a cgroup unit (--unit cgroup): the threads of every process in it
// bound first, then each process's memory moved (paced, journaled with the cgroup's name). A
// failure while binding puts back every thread bound so far, as for one process; a process
// that exits meanwhile is skipped; a stop request ends the moves.
import type { Placement } from '../policy/agent/types.js';
import { bind, moveMemory, putBack, type ActDeps, type ActOutcome, type SetThread } from './act.js';

type Outcome = ActOutcome;

function total(os: readonly Outcome[], k: 'bytes' | 'pages' | 'migrateMs' | 'batches'): number {
  return os.reduce((s, o) => s + ((o as Partial<Record<typeof k, number>>)[k] ?? 0), 0);
}

/** One outcome for the unit from its processes' outcomes. */
function merge(os: readonly Outcome[], threads: number): Outcome {
  const base = {
    threads,
    bytes: total(os, 'bytes'),
    pages: total(os, 'pages'),
    migrateMs: total(os, 'migrateMs'),
    batches: total(os, 'batches'),
  };
  const stopped = os.filter((o) => o.kind === 'stopped');
  if (stopped.length > 0)
    return {
      kind: 'stopped',
      ...base,
      plannedBytes: stopped.reduce((s, o) => s + (o.kind === 'stopped' ? o.plannedBytes : 0), 0),
    };
  if (os.length > 0 && os.every((o) => o.kind === 'gone'))
    return { kind: 'gone', threads, step: 'moving its processes' };
  const bad = os.find((o) => o.kind === 'failed' || o.kind === 'partial');
  if (bad === undefined) return { kind: 'moved', ...base };
  const why = bad.kind === 'failed' ? bad.message : bad.kind === 'partial' ? bad.why : '';
  const notMoved = os.reduce((s, o) => s + (o.kind === 'partial' ? o.notMoved : 0), 0);
  return { kind: 'partial', ...base, notMoved, why };
}

export async function actOnUnit(pids: readonly number[], comm: string, pl: Placement, d: ActDeps): Promise<ActOutcome> {
  const done = new Map<number, Map<number, SetThread>>();
  const threads = () => [...done.values()].reduce((s, m) => s + m.size, 0);
  for (const pid of pids) {
    const mine = new Map<number, SetThread>();
    done.set(pid, mine);
    const stop = bind(pid, pl, d, mine);
    if (stop === null || stop.kind === 'gone') continue;
    if (stop.kind !== 'failed') return stop;
    const back = [...done].map(([p, m]) => putBack(p, m, d));
    return {
      ...stop,
      threads: threads(),
      putBack: { threads: back.reduce((s, b) => s + b.threads, 0), failures: back.flatMap((b) => b.failures) },
    };
  }
  const outcomes: Outcome[] = [];
  for (const pid of pids) {
    if (d.move.signal.aborted) break;
    outcomes.push(await moveMemory(pid, comm, pl, done.get(pid)?.size ?? 0, d));
  }
  return merge(outcomes, threads());
}
