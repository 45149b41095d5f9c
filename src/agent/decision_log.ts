// The agent's log of decisions: one line per decision (text or JSON), a skip logged once per
// process (or unit) and reason, and only the skips the table says are worth it (policy/agent/
// skips.ts: every small or idle process is silent); each logged decision counted in metrics.
// A process is its pid + start time (per_process.ts): a new process with a reused pid is logged.
import { SKIPS, skipText } from '../policy/agent/skips.js';
import type { Decision, SkipReason } from '../policy/agent/types.js';
import type { AgentConfig } from './config.js';
import { type Outcome, outcomeName, renderLogLine } from './log_line.js';
import type { AgentMetricsSink } from './metrics_sink.js';
import { PerProcess, type ProcessId } from './per_process.js';

export class DecisionLog {
  /** The last outcome logged per process (pid + start time) and unit (cgroup path). */
  private readonly processes = new PerProcess<string>();
  private readonly units = new Map<string, string>();

  /** `idOf`: who has the pid this pass (its start time). */
  constructor(
    private readonly cfg: AgentConfig,
    private readonly out: (line: string) => void,
    private readonly metrics: AgentMetricsSink | null | undefined,
    private readonly idOf: (pid: number) => ProcessId = (pid) => ({ pid, start: -1 }),
  ) {}

  /** A decision and what came of it, at `nowMs`. */
  log(d: Decision, o: Outcome, nowMs: number): void {
    const key = d.kind === 'skip' ? d.skip : 'move';
    const unit = d.unit?.cgroup;
    const id = this.idOf(d.pid);
    const last = unit !== undefined ? this.units.get(unit) : this.processes.get(id);
    if (d.kind === 'skip' && last === key) return;
    if (unit !== undefined) this.units.set(unit, key);
    else this.processes.set(id, key);
    this.out(renderLogLine(d, o, new Date(nowMs), this.cfg.logFormat));
    this.metrics?.decision(outcomeName(d, o));
  }

  /** A process (or unit) left alone before any decision: logged when the table says so. */
  note(
    at: { pid: number; comm: string; nowMs: number },
    skip: SkipReason,
    reason?: string,
    unit?: { cgroup: string; pids: number[] },
  ): void {
    if (!SKIPS[skip].logged) return;
    const d: Decision = { kind: 'skip', pid: at.pid, comm: at.comm, skip, reason: skipText(skip, reason) };
    this.log(unit ? { ...d, unit } : d, null, at.nowMs);
  }

  /** Forgets the processes (a pid now another process's included) and units that are gone. */
  forget(alive: { startOf: (pid: number) => number | null; unit: (cgroup: string) => boolean }): void {
    this.processes.retain(alive.startOf);
    for (const cg of this.units.keys()) if (!alive.unit(cg)) this.units.delete(cg);
  }

  /** Processes and units it keeps a last outcome of. */
  get size(): number {
    return this.processes.size + this.units.size;
  }
}
