// What the agent's loop reports to metrics (src/agent/metrics.ts implements it on
// src/serve's server and registry, loaded only with --metrics).
import type { ProcessView } from '../policy/agent/types.js';
import type { MachineReading } from './machine.js';

export interface AgentMetricsSink {
  decision(outcome: string): void;
  /** What a move did; `cgroup` names the unit with --unit cgroup. */
  moved(bytes: number, pages: number, threads: number, cgroup?: string): void;
  locality(processes: readonly ProcessView[]): void;
  machine(m: MachineReading): void;
  /** Thread affinities a failed action set and could not put back (they stay journaled). */
  putBackFailed(threads: number): void;
  /** A pass threw (logged; the agent goes on). */
  passFailed(): void;
  /** SIGHUP: re-reads --metrics-token-file; the line to log. */
  reload?(): string;
}
