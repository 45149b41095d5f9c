// The agent's settings: every flag, the same keys in a YAML config file. Plain data and the
// defaults; src/agent/config_file.ts validates files and src/cli/commands/agent.ts flags.
import { DEFAULT_POLICY, type PolicyOptions, type UnitKind } from '../policy/agent/types.js';
import type { LogFormat } from './log_line.js';

export interface AgentConfig extends PolicyOptions {
  readonly intervalMs: number;
  /** What is placed as one: a process, or a cgroup v2 leaf with its processes. */
  readonly unit: UnitKind;
  /** Share of one CPU a page move may use (the kernel's copy included), 0..1; 1 = no limit. */
  readonly maxMigrateCpu: number;
  readonly numaBalancing: 'off' | 'keep';
  readonly advise: boolean;
  readonly once: boolean;
  readonly logFormat: LogFormat;
  readonly stateDir: string;
  /** "HOST:PORT" or "PORT" to serve Prometheus metrics on; null = none. */
  readonly metrics: string | null;
  /** Bearer token file the metrics endpoint requires (needed, or metricsInsecurePublic, off loopback). */
  readonly metricsTokenFile: string | null;
  readonly metricsInsecurePublic: boolean;
}

export const DEFAULT_AGENT: AgentConfig = {
  ...DEFAULT_POLICY,
  intervalMs: 5000,
  unit: 'process',
  maxMigrateCpu: 0.5,
  numaBalancing: 'off',
  advise: false,
  once: false,
  logFormat: 'text',
  stateDir: '/var/lib/numakit',
  metrics: null,
  metricsTokenFile: null,
  metricsInsecurePublic: false,
};
