// Memory tiering and NUMA balancing counters from /proc/vmstat: pages promoted to and demoted
// from faster tiers (pgpromote_*, pgdemote_*), page migrations (pgmigrate_*), and AutoNUMA's
// hinting faults and migrations (numa_*). Only the keys this kernel prints are exported.
import { readProcVmstat } from '../../sysfs/proc_vmstat.js';
import { family, s, type Family } from '../exposition.js';
import { guard, type CollectContext } from './context.js';

const KEYS =
  /^(pgpromote_|pgdemote_|pgmigrate_|numa_(pte_updates|huge_pte_updates|hint_faults|hint_faults_local|pages_migrated))/;

export function readTiering(c: CollectContext): Record<string, number> {
  const v = guard(c, 'vmstat', () => readProcVmstat(c.root)) ?? {};
  return Object.fromEntries(Object.entries(v).filter(([k]) => KEYS.test(k)));
}

export function tieringFamilies(v: Readonly<Record<string, number>>): Family[] {
  return Object.entries(v).map(([k, x]) => family(`numakit_vmstat_${k}_total`, 'counter', `/proc/vmstat ${k}`, [s(x)]));
}
