// How settings and wanted values are named in output (apply's notes, plan's "Before you start",
// the profile table in docs/profiles.md).
import type { Resolved } from './resolve.js';
import type { Advice, Entry, SettingKey, SettingValues } from './types.js';
import { isByPlacement } from './types.js';

export const SETTING_LABELS: Readonly<Record<SettingKey, string>> = {
  autonuma: 'AutoNUMA (kernel.numa_balancing)',
  autonumaScan: 'AutoNUMA scan rate',
  thpEnabled: 'THP enabled',
  thpDefrag: 'THP defrag',
  zoneReclaim: 'vm.zone_reclaim_mode',
  swappiness: 'vm.swappiness',
  ksm: 'KSM',
  governor: 'CPU frequency governor',
  irq: 'NIC IRQ placement',
  rps: 'RPS/RFS',
  rqAffinity: 'NVMe rq_affinity',
  tuned: 'tuned profile',
  demotion: 'demotion to slower nodes',
  promoteRate: 'promotion rate limit (kernel.numa_balancing_promote_rate_limit_MBps)',
};

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

type Formatters = { readonly [K in SettingKey]: (v: SettingValues[K]) => string };

const also = (prefer: string, accept: readonly string[]) => {
  const others = accept.filter((x) => x !== prefer);
  return others.length === 0 ? prefer : `${prefer} (${others.join(', ')} also fine)`;
};

const FORMAT: Formatters = {
  autonuma: (v) => ({ off: 'off (0)', on: 'on (1)', tiering: 'tiering (2)' })[v],
  autonumaScan: (v) => `delay ${v.delayMs} ms, period ${v.periodMinMs}-${v.periodMaxMs} ms, ${v.sizeMb} MB a scan`,
  thpEnabled: (v) => also(v.prefer, v.accept),
  thpDefrag: (v) => also(v.prefer, v.accept),
  zoneReclaim: () => '0',
  swappiness: (v) => `at most ${v}`,
  ksm: () => 'off',
  governor: (v) => v,
  irq: (v) => (v === 'pinned' ? 'pinned to its node, irqbalance kept off' : 'on its node (irqbalance or by hand)'),
  rps: () => 'on busy NICs with few queues',
  rqAffinity: (v) => `${v}`,
  tuned: (v) => v.profile,
  demotion: () => 'on',
  promoteRate: (v) =>
    `${pct(v.share)} of the slower tier's bandwidth (${pct(v.floorShare)} to ${pct(v.share)} also fine)`,
};

export function formatValue<K extends SettingKey>(key: K, v: SettingValues[K]): string {
  return (FORMAT[key] as (x: SettingValues[K]) => string)(v);
}

/** A table entry in words: "off (0)", or "bound: off (0); unpinned: on (1)". */
export function formatEntry<K extends SettingKey>(key: K, e: Entry<SettingValues[K]>): string {
  if (!isByPlacement(e)) return formatValue(key, e.value);
  const side = (a: Advice<SettingValues[K]> | null) => (a === null ? 'either' : formatValue(key, a.value));
  return `bound: ${side(e.bound)}; unpinned: ${side(e.unpinned)}`;
}

/** What a profile wants of a setting on this machine, in words. */
export function formatResolved<K extends SettingKey>(key: K, r: Resolved<SettingValues[K]>): string {
  if (r.state === 'want') return formatValue(key, r.advice.value);
  if (r.state === 'moot') return `nothing to do: ${r.why}`;
  const side = (a: Advice<SettingValues[K]> | null) => (a === null ? 'either' : formatValue(key, a.value));
  return `depends on placement (bound: ${side(r.bound)}; unpinned: ${side(r.unpinned)}): ${r.why}`;
}
