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
  /**
   * --unit cgroup: the cgroups still there; the per-cgroup series of the others are dropped (a
   * removed cgroup's counter ends; one created again at the same path starts again from 0).
   */
  forgetUnits?(alive: (cgroup: string) => boolean): void;
  /** Thread affinities a failed action set and could not put back (they stay journaled). */
  putBackFailed(threads: number): void;
  /** A pass threw (logged; the agent goes on). */
  passFailed(): void;
  /** SIGHUP: re-reads --metrics-token-file; the line to log. */
  reload?(): string;
}
