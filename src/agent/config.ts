// The agent's settings: every flag, the same keys in a YAML config file. Plain data and the
// defaults; src/cli/commands/agent_settings.ts declares each key once and reads flags and files.
import { DEFAULT_POLICY, type PolicyOptions, type UnitKind } from '../policy/agent/types.js';
import type { LogFormat } from './log_line.js';
import { MAX_WAIT_MS } from '../model/timer_limit.js';
import { DEFAULT_STATE_DIR } from '../runtime/state_dir.js';

export interface AgentConfig extends PolicyOptions {
  readonly intervalMs: number;
  /** --max-interval: the longest sleep while passes find nothing to do (policy/agent/interval.ts); null: 3 x intervalMs. */
  readonly maxIntervalMs: number | null;
  /**
   * --watch: between passes the kernel's process events wake the watch (agent/proc_events.ts: no
   * wake-up while no process starts); it looks at a new process this long after its fork, and
   * again every this long while it is small, idle or young; a large, busy one gets a pass at once. 0: off.
   */
  readonly watchMs: number;
  /** What is placed as one: a process, or a cgroup v2 leaf with its processes. */
  readonly unit: UnitKind;
  /**
   * Share of one CPU a page move may use (the kernel's copy included), 0..1; 1 = no limit; 'auto':
   * a whole CPU while the machine has one idle, half of one otherwise (policy/agent/pace.ts migrateShare).
   */
  readonly maxMigrateCpu: number | 'auto';
  readonly numaBalancing: 'off' | 'keep';
  readonly advise: boolean;
  readonly once: boolean;
  readonly logFormat: LogFormat;
  readonly stateDir: string;
  /** "HOST:PORT" or "PORT" to serve Prometheus metrics on; null = none. */
  readonly metrics: string | null;
  /** Bearer token file the metrics endpoint requires (needed, or metricsInsecurePublic, off loopback). */
  readonly metricsTokenFile: string | null;
  /**
   * The metrics endpoint's web config file (serve's --web.config.file: TLS, client certificates,
   * basic_auth_users, headers); with basic auth or verified client certificates it opens a
   * non-loopback host too.
   */
  readonly metricsWebConfigFile: string | null;
  readonly metricsInsecurePublic: boolean;
}

/** --max-interval unless given: three --interval (numad stretches 5 s to 15 s). */
export const MAX_INTERVAL_FACTOR = 3;

/**
 * The longest sleep between passes; --interval when --max-interval is shorter (refused on the
 * command line). The default (3 x --interval) stays within a timer's range, as every duration does.
 */
export function maxIntervalOf(cfg: Pick<AgentConfig, 'intervalMs' | 'maxIntervalMs'>): number {
  return Math.max(cfg.intervalMs, cfg.maxIntervalMs ?? Math.min(MAX_WAIT_MS, cfg.intervalMs * MAX_INTERVAL_FACTOR));
}

export const DEFAULT_AGENT: AgentConfig = {
  ...DEFAULT_POLICY,
  intervalMs: 5000,
  maxIntervalMs: null,
  watchMs: 1000,
  unit: 'process',
  maxMigrateCpu: 'auto',
  numaBalancing: 'off',
  advise: false,
  once: false,
  logFormat: 'text',
  stateDir: DEFAULT_STATE_DIR,
  metrics: null,
  metricsTokenFile: null,
  metricsWebConfigFile: null,
  metricsInsecurePublic: false,
};
