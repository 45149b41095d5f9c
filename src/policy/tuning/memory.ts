// Memory reclaim and merging: zone_reclaim_mode, swappiness, KSM, demotion to slower nodes.
import type { Change, ServiceState } from '../../model/change.js';
import type { Advice, PromoteRateWant } from '../knowledge/types.js';
import { service, sysctl, sysfs } from './change.js';

export const KSM_RUN = 'sys/kernel/mm/ksm/run';
export const DEMOTION = 'sys/kernel/mm/numa/demotion_enabled';

export function zoneReclaimChanges(a: Advice<0>): Change[] {
  return [sysctl('vm.zone_reclaim_mode', 0, a.reason)];
}

/** The table's value is a ceiling: anything from 0 to it is left alone. */
export function swappinessChanges(a: Advice<number>): Change[] {
  return [
    sysctl(
      'vm.swappiness',
      a.value,
      a.reason,
      Array.from({ length: a.value }, (_, i) => i),
    ),
  ];
}

/**
 * KSM off: run = 2 stops ksmd and unmerges what it merged (each user gets its own, local copy);
 * run = 0 (stopped) is as good. ksmtuned goes first, or it starts KSM again.
 */
export function ksmChanges(a: Advice<'off'>, services: Readonly<Record<string, ServiceState>>): Change[] {
  const out: Change[] = [];
  if (services.ksmtuned === 'running') out.push(service('ksmtuned', 'stopped', 'it starts KSM again'));
  out.push(sysfs(KSM_RUN, 2, `KSM off and pages unmerged: ${a.reason}`, [0]));
  return out;
}

export function demotionChanges(a: Advice<'on'>): Change[] {
  return [sysfs(DEMOTION, 'true', a.reason)];
}

export const PROMOTE_RATE = 'kernel.numa_balancing_promote_rate_limit_MBps';

/** The limit's value and the range left alone, in MB/s, for a slower tier of `bandwidthMBps`. */
export function promoteRateRange(w: PromoteRateWant, bandwidthMBps: number): { value: number; low: number } {
  const value = Math.max(1, Math.floor(bandwidthMBps * w.share));
  return { value, low: Math.min(value, Math.max(1, Math.ceil(bandwidthMBps * w.floorShare))) };
}

export function promoteRateChanges(a: Advice<PromoteRateWant>, bandwidthMBps: number): Change[] {
  const r = promoteRateRange(a.value, bandwidthMBps);
  return [
    {
      ...sysctl(PROMOTE_RATE, r.value, `${a.reason} (slower tier: ${bandwidthMBps} MB/s)`),
      acceptRange: [r.low, r.value],
    },
  ];
}
