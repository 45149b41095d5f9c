// Raw option strings (from parseArgs) -> validated options per workload. Every option a workload
// does not use is refused, so a typo'd or misplaced flag never passes silently.
import { UsageError } from '../../model/errors.js';
import { SPARK_SIZING_DEFAULTS, type SparkSizingOptions } from './spark_sizing.js';
import { fractionIn, intIn, safeName, safePath, safeUrl } from './validate.js';

export type RawOptions = Readonly<Record<string, string | boolean | undefined>>;

/** Options every workload accepts (handled by the command, not the planner). */
const COMMON = ['out', 'force', 'json'];

export function checkAllowed(workload: string, raw: RawOptions, allowed: readonly string[]): void {
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || COMMON.includes(k) || allowed.includes(k)) continue;
    throw new UsageError(`plan ${workload}: --${k} does not apply to this workload (see numakit plan --help)`);
  }
}

export function str(raw: RawOptions, key: string, dflt: string): string {
  const v = raw[key];
  return typeof v === 'string' ? v : dflt;
}

export const SPARK_SIZING_KEYS = ['cores-fraction', 'memory-fraction', 'overhead', 'hosts'];

export function sparkSizingOptions(raw: RawOptions): SparkSizingOptions {
  const d = SPARK_SIZING_DEFAULTS;
  return {
    coresFraction: fractionIn(str(raw, 'cores-fraction', `${d.coresFraction}`), '--cores-fraction', 0.25, 1),
    memoryFraction:
      typeof raw['memory-fraction'] === 'string'
        ? fractionIn(raw['memory-fraction'], '--memory-fraction', 0.25, 0.95)
        : d.memoryFraction,
    overheadPct: intIn(str(raw, 'overhead', `${d.overheadPct}`), '--overhead', 10, 20),
    hosts: intIn(str(raw, 'hosts', `${d.hosts}`), '--hosts', 1, 100000),
  };
}

export const SPARK_COMMON_KEYS = [...SPARK_SIZING_KEYS, 'spark-home', 'java-home', 'user', 'data-dir'];

export function sparkCommon(raw: RawOptions): { sparkHome: string; javaHome: string; user: string; dataDir: string } {
  return {
    sparkHome: safePath(str(raw, 'spark-home', '/opt/spark'), '--spark-home'),
    javaHome: safePath(str(raw, 'java-home', '/usr/lib/jvm/default-java'), '--java-home'),
    user: safeName(str(raw, 'user', 'spark'), '--user'),
    dataDir: safePath(str(raw, 'data-dir', '/data'), '--data-dir'),
  };
}

export function masterUrl(raw: RawOptions, dflt: string): string {
  return safeUrl(str(raw, 'master', dflt), '--master');
}
