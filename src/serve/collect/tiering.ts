// Memory tiering and NUMA balancing counters from /proc/vmstat: pages promoted to and demoted
// from faster tiers (pgpromote_*, pgdemote_*), page migrations (pgmigrate_*), and AutoNUMA's
// hinting faults and migrations (numa_*). Only the keys this kernel prints are exported.
import { DEMOTED, PROMOTED, tieringCounters } from '../../model/tiering_counters.js';
import { listNodeDirs } from '../../sysfs/node_list.js';
import { readNodeVmstat } from '../../sysfs/node_vmstat.js';
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

export interface NodeTiering {
  readonly node: number;
  /** pgpromote_success and pgdemote (pgdemote_* summed) of nodeN/vmstat; {} where the kernel has none. */
  readonly counters: Readonly<Record<string, number>>;
}

/** Pages promoted into and demoted out of each node (nodeN/vmstat). */
export function readNodeTiering(c: CollectContext): NodeTiering[] {
  return listNodeDirs(c.root).map((node) => ({
    node,
    counters: tieringCounters(guard(c, 'vmstat', () => readNodeVmstat(c.root, node)) ?? null),
  }));
}

export function nodeTieringFamilies(nodes: readonly NodeTiering[]): Family[] {
  const of = (k: string) =>
    nodes.filter((n) => n.counters[k] !== undefined).map((n) => s(n.counters[k]!, { node: String(n.node) }));
  const out: Family[] = [];
  const promoted = of(PROMOTED);
  const demoted = of(DEMOTED);
  if (promoted.length > 0)
    out.push(
      family(
        'numakit_node_pages_promoted_total',
        'counter',
        'Pages promoted into the node from a slower memory tier (nodeN/vmstat pgpromote_success)',
        promoted,
      ),
    );
  if (demoted.length > 0)
    out.push(
      family(
        'numakit_node_pages_demoted_total',
        'counter',
        'Pages demoted out of the node to a slower memory tier by reclaim (nodeN/vmstat pgdemote_* summed)',
        demoted,
      ),
    );
  return out;
}
