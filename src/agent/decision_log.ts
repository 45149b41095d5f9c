// The agent's log of decisions: one line per decision (text or JSON), a skip logged once per
// process (or unit) and reason, and only the skips the table says are worth it (policy/agent/
// skips.ts: every small or idle process is silent); each logged decision counted in metrics.
import { SKIPS, skipText } from '../policy/agent/skips.js';
import type { Decision, SkipReason } from '../policy/agent/types.js';
import type { AgentConfig } from './config.js';
import { type Outcome, outcomeName, renderLogLine } from './log_line.js';
import type { AgentMetricsSink } from './metrics_sink.js';

export class DecisionLog {
  /** The last outcome logged per process (pid) or unit (cgroup path). */
  private readonly lastLogged = new Map<number | string, string>();

  constructor(
    private readonly cfg: AgentConfig,
    private readonly out: (line: string) => void,
    private readonly metrics: AgentMetricsSink | null | undefined,
  ) {}

  /** A decision and what came of it, at `nowMs`. */
  log(d: Decision, o: Outcome, nowMs: number): void {
    const key = d.kind === 'skip' ? d.skip : 'move';
    const who = d.unit?.cgroup ?? d.pid;
    if (d.kind === 'skip' && this.lastLogged.get(who) === key) return;
    this.lastLogged.set(who, key);
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

  /** Forgets the processes and units that are gone. */
  forget(alive: (who: number | string) => boolean): void {
    for (const who of this.lastLogged.keys()) if (!alive(who)) this.lastLogged.delete(who);
  }
}
