// Which knowledge-table setting a doctor finding is about (null: an observation, not a setting:
// memory imbalance, numa_miss, processes far from their memory, devices without a node ...).
// The matrix test uses it to check that doctor and apply agree setting by setting.
import type { SettingKey } from '../knowledge/types.js';

const BY_ID: readonly [RegExp, SettingKey][] = [
  [/^numa-balancing$/, 'autonuma'],
  [/^numa-off\/balancing-cmdline$/, 'autonuma'],
  [/^autonuma-scan(\/|$)/, 'autonumaScan'],
  [/^thp\/enabled$/, 'thpEnabled'],
  [/^thp\/defrag$/, 'thpDefrag'],
  [/^zone-reclaim$/, 'zoneReclaim'],
  [/^swap\/swappiness$/, 'swappiness'],
  [/^ksm$/, 'ksm'],
  [/^cpufreq-tuned\/governor$/, 'governor'],
  [/^cpufreq-tuned\/tuned$/, 'tuned'],
  [/^irqbalance\/(undoes-pinning|nothing-set)$/, 'irq'],
  [/^irq-locality\/(?!nvme)/, 'irq'],
  [/^io-queues\/rps\//, 'rps'],
  [/^io-queues\/rq_affinity\//, 'rqAffinity'],
  [/^demotion$/, 'demotion'],
  [/^promote-rate-limit$/, 'promoteRate'],
];

export function settingOf(findingId: string): SettingKey | null {
  return BY_ID.find(([re]) => re.test(findingId))?.[1] ?? null;
}
