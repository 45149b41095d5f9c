// The planners: workload name -> (machine, raw options) -> decision, a union on `kind`.
import { UsageError } from '../../model/errors.js';
import { checkAllowed, masterUrl, sparkCommon, sparkSizingOptions, str, SPARK_COMMON_KEYS, type RawOptions } from './options.js';
import { safePath } from './validate.js';
import { planSparkStandalone, type SparkStandaloneDecision } from './spark_standalone.js';
import type { MachineShare } from './types.js';

export type PlanDecision = SparkStandaloneDecision;

interface Planner {
  readonly summary: string;
  readonly keys: readonly string[];
  readonly plan: (m: MachineShare, raw: RawOptions) => PlanDecision;
}

export const PLANNERS: Record<string, Planner> = {
  'spark-standalone': {
    summary: 'one Spark worker per node: units, java wrapper, spark-env.sh, spark-defaults.conf, IRQs, submit script',
    keys: [...SPARK_COMMON_KEYS, 'master', 'wrapper-home'],
    plan: (m, raw) =>
      planSparkStandalone(m, {
        ...sparkSizingOptions(raw),
        ...sparkCommon(raw),
        master: masterUrl(raw, 'spark://master:7077'),
        wrapperHome: safePath(str(raw, 'wrapper-home', '/opt/numa-java'), '--wrapper-home'),
      }),
  },
};

export function planWorkload(workload: string, machine: MachineShare, raw: RawOptions): PlanDecision {
  const p = PLANNERS[workload];
  if (p === undefined) throw new UsageError(`plan: unknown workload '${workload}' (one of: ${Object.keys(PLANNERS).join(', ')})`);
  checkAllowed(workload, raw, p.keys);
  return p.plan(machine, raw);
}
