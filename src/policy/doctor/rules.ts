// Every doctor rule, in issue order, and the function that runs them.
import type { DoctorInput } from '../../model/doctor_input.js';
import { sortFindings, type Finding } from '../../model/finding.js';
import { autonumaScan } from './autonuma_scan.js';
import { cpufreqTuned } from './cpufreq_tuned.js';
import { demotion } from './demotion.js';
import { deviceNode } from './device_node.js';
import { ioQueues } from './io_queues.js';
import { irqLocality } from './irq_locality.js';
import { irqbalance } from './irqbalance.js';
import { ksm } from './ksm.js';
import { lowLocality } from './low_locality.js';
import { memoryImbalance } from './memory_imbalance.js';
import { memoryOnlyNodes } from './memory_only_nodes.js';
import { memoryTiers } from './memory_tiers.js';
import { nodeHealth } from './node_health.js';
import { nodeLayoutRule } from './node_layout.js';
import { numaBalancing } from './numa_balancing.js';
import { numaMiss } from './numa_miss.js';
import { numaOff } from './numa_off.js';
import { pinnedRemote } from './pinned_remote.js';
import type { Profile } from './profiles.js';
import { promoteRate } from './promote_rate.js';
import type { Rule } from './rule.js';
import { swap } from './swap.js';
import { thp } from './thp.js';
import { vmVnuma } from './vm_vnuma.js';
import { zoneReclaim } from './zone_reclaim.js';

export const RULES: readonly Rule[] = [
  numaOff,
  vmVnuma,
  numaBalancing,
  autonumaScan,
  thp,
  zoneReclaim,
  swap,
  ksm,
  irqbalance,
  irqLocality,
  ioQueues,
  deviceNode,
  memoryImbalance,
  numaMiss,
  lowLocality,
  pinnedRemote,
  memoryOnlyNodes,
  nodeHealth,
  cpufreqTuned,
  demotion,
  memoryTiers,
  promoteRate,
  nodeLayoutRule,
];

export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}

/** Runs every rule; findings sorted by severity. */
export function runDoctor(input: DoctorInput, profile: Profile): Finding[] {
  return sortFindings(RULES.flatMap((r) => r.check(input, profile)));
}
