// The agent's journal: a change set (src/actuate/journal.ts, source "agent") that holds, before
// each change is made, every thread's previous affinity (ChangeSet.threads) and
// kernel.numa_balancing's previous value (an ordinary sysctl entry). Saved atomically with fsync
// at each step, so after a SIGKILL `numakit agent restore` finds everything the agent changed.
// Page moves are journaled too (ChangeSet.moves: how far each got, saved about once a second
// while it runs): memory is not put back, but a restore says where a move stopped.
// Entries of threads and processes that have exited are dropped as the agent goes, so the
// file stays small.
import { formatCpuList } from '../model/cpuset.js';
import type { ChangeSet, JournalEntry, PageMoveEntry, SysctlChange, ThreadAffinityEntry } from '../model/change.js';
import { NumakitError } from '../model/errors.js';
import { createChangeSet, saveChangeSet } from '../actuate/journal.js';
import { readTarget, sameValue, knobValue, writeTarget } from '../actuate/targets.js';
import type { System } from '../actuate/system.js';
import { parseCpuList } from '../model/cpuset.js';

export const AGENT_SOURCE = 'agent';

/** A move in progress is journaled at most this often (each save is an fsync). */
export const MOVE_SAVE_EVERY_MS = 1000;

export interface ThreadChange {
  readonly pid: number;
  readonly tid: number;
  readonly start: number;
  readonly comm: string;
  /** Affinity now (before the change). */
  readonly old: readonly number[];
  /** Affinity it is about to get. */
  readonly cpus: readonly number[];
}

const same = (a: ThreadAffinityEntry, b: { tid: number; start: number }) => a.tid === b.tid && a.start === b.start;

export class AgentJournal {
  private cs: ChangeSet;
  private lastMoveSave = 0;

  constructor(
    private readonly stateDir: string,
    now: Date,
  ) {
    this.cs = createChangeSet(
      stateDir,
      { source: AGENT_SOURCE, status: 'applying', pid: process.pid, planned: 0, entries: [], files: [], threads: [] },
      now,
    );
  }

  get changeSet(): ChangeSet {
    return this.cs;
  }

  private save(next: ChangeSet): void {
    saveChangeSet(this.stateDir, next);
    this.cs = next;
  }

  /**
   * CPUs the agent last set on the main thread of pid (else on any of its threads: with
   * --granularity threads its threads can differ); null when it never changed that process.
   */
  agentCpus(pid: number): number[] | null {
    const mine = (this.cs.threads ?? []).filter((e) => e.pid === pid && e.state !== 'restored');
    const t = mine.find((e) => e.tid === pid) ?? mine[0];
    return t === undefined ? null : parseCpuList(t.value);
  }

  /** Journals a page move about to start (replacing an earlier one of the same process). */
  moveStarted(m: Omit<PageMoveEntry, 'state' | 'movedBytes' | 'at'>, now: Date): void {
    const moves = (this.cs.moves ?? []).filter((e) => e.pid !== m.pid);
    this.lastMoveSave = now.getTime();
    this.save({ ...this.cs, moves: [...moves, { ...m, movedBytes: 0, state: 'moving', at: now.toISOString() }] });
  }

  /** Progress of the move of pid: saved when `force` or a second after the last save. */
  moveUpdate(
    pid: number,
    movedBytes: number,
    state: PageMoveEntry['state'],
    now: Date,
    force = state !== 'moving',
  ): void {
    if (!force && now.getTime() - this.lastMoveSave < MOVE_SAVE_EVERY_MS) return;
    this.lastMoveSave = now.getTime();
    const moves = (this.cs.moves ?? []).map((e) =>
      e.pid === pid && e.state === 'moving' ? { ...e, movedBytes, state, at: now.toISOString() } : e,
    );
    this.save({ ...this.cs, moves });
  }

  /**
   * A move stopped by SIGTERM/SIGINT: recorded, not written. The restore that follows every stop
   * writes it with the rest in its one write (what the stop waits for is the putting back); were
   * the agent killed before that, the set says the move was in progress, and a restore says where
   * it stopped.
   */
  moveStopped(pid: number, movedBytes: number, now: Date): void {
    const moves = (this.cs.moves ?? []).map((e) =>
      e.pid === pid && e.state === 'moving'
        ? { ...e, movedBytes, state: 'stopped' as const, at: now.toISOString() }
        : e,
    );
    this.cs = { ...this.cs, moves };
  }

  /** Journals the threads' affinities before each becomes its `cpus` (a thread already changed keeps its first old value). */
  beforeAffinity(changes: readonly ThreadChange[]): void {
    const threads = [...(this.cs.threads ?? [])];
    for (const c of changes) {
      const value = formatCpuList(c.cpus);
      const i = threads.findIndex((e) => same(e, c));
      if (i >= 0) threads[i] = { ...threads[i]!, value, state: 'writing' };
      else
        threads.push({
          pid: c.pid,
          tid: c.tid,
          start: c.start,
          comm: c.comm,
          old: formatCpuList(c.old),
          value,
          state: 'writing',
        });
    }
    this.save({ ...this.cs, threads });
  }

  /** Marks the threads whose affinity was set. */
  afterAffinity(done: readonly { tid: number; start: number }[]): void {
    const threads = (this.cs.threads ?? []).map((e) =>
      e.state === 'writing' && done.some((d) => same(e, d)) ? { ...e, state: 'written' as const } : e,
    );
    this.save({ ...this.cs, threads });
  }

  /**
   * Threads given back the affinity they had before an action that failed: their entry goes back
   * to that value, or to restored when it is the one from before the agent's first change.
   */
  revertAffinity(back: readonly { tid: number; start: number; cpus: readonly number[] }[]): void {
    if (back.length === 0) return;
    const threads = (this.cs.threads ?? []).map((e) => {
      const b = back.find((x) => same(e, x));
      if (b === undefined) return e;
      const value = formatCpuList(b.cpus);
      return { ...e, value, state: value === e.old ? ('restored' as const) : ('written' as const) };
    });
    this.save({ ...this.cs, threads });
  }

  /**
   * Drops entries of threads and moves of processes that no longer exist (their affinity died
   * with them), restored ones too: those were kept for ever, so an agent whose actions kept
   * failing on short-lived processes grew its journal (rewritten whole at each save) without end.
   */
  prune(alive: (e: { pid: number; tid: number; start: number }) => boolean): void {
    const threads = this.cs.threads ?? [];
    const kept = threads.filter((e) => alive(e));
    const moves = this.cs.moves ?? [];
    const keptMoves = moves.filter((m) => alive({ pid: m.pid, tid: m.pid, start: m.start }));
    if (kept.length !== threads.length || keptMoves.length !== moves.length)
      this.save({ ...this.cs, threads: kept, ...(this.cs.moves === undefined ? {} : { moves: keptMoves }) });
  }

  /**
   * Sets kernel.numa_balancing, journaling its old value first. Returns the old value, or null
   * when the kernel has no such knob (no NUMA balancing built in) or it already had the value.
   */
  setSysctl(sys: System, target: string, value: string, reason: string): string | null {
    const change: SysctlChange = { kind: 'sysctl', target, value, reason };
    const now = readTarget(sys, change);
    if (now === null || sameValue(change, now.path, now.raw, value)) return null;
    const entry: JournalEntry = { change, path: now.path, old: now.raw, restore: knobValue(now.raw), state: 'writing' };
    const at = this.cs.entries.length;
    this.save({ ...this.cs, entries: [...this.cs.entries, entry] });
    writeTarget(sys, change, now.path, value);
    const back = readTarget(sys, change);
    if (back === null || !sameValue(change, now.path, back.raw, value))
      throw new NumakitError(
        `/${now.path}: wrote '${value}' but it reads back '${back === null ? 'nothing' : knobValue(back.raw)}'`,
      );
    this.save({ ...this.cs, entries: this.cs.entries.map((e, j) => (j === at ? { ...e, state: 'written' } : e)) });
    return entry.restore;
  }

  /** Replaces the in-memory set after a restore saved it. */
  adopt(cs: ChangeSet): void {
    this.cs = cs;
  }
}
