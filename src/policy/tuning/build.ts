// A profile's changes, setting by setting, from what the knowledge table wants on this machine
// (policy/knowledge/resolve.ts). `numakit apply --profile NAME` writes them; what the profile
// leaves alone here (one node, placement unknown, no such device) comes back as notes.
import type { Change } from '../../model/change.js';
import { wanted, type TuningProfile } from '../knowledge/resolve.js';
import type { SettingKey } from '../knowledge/types.js';
import { autonumaChanges, autonumaRuns, scanChanges } from './autonuma.js';
import { governorChanges } from './cpu.js';
import type { TuningInput } from './input.js';
import { rpsChanges, rpsNics, rqAffinityChanges } from './io.js';
import { irqChanges } from './irq.js';
import { demotionChanges, ksmChanges, promoteRateChanges, swappinessChanges, zoneReclaimChanges } from './memory.js';
import { thpChanges } from './thp.js';

export interface SettingChanges {
  readonly setting: SettingKey;
  readonly changes: Change[];
}

export interface TuningNote {
  readonly setting: SettingKey;
  readonly why: string;
}

export interface TuningChanges {
  readonly settings: SettingChanges[];
  readonly notes: TuningNote[];
}

/** AutoNUMA will run after this profile: it turns it on, or leaves it as it is and it is on now. */
function autonumaWillRun(p: TuningProfile, input: TuningInput): boolean {
  const a = wanted(p, 'autonuma');
  return a !== null ? a.value !== 'off' : autonumaRuns(input.topology.kernel.numaBalancing.value);
}

function changesFor(key: SettingKey, p: TuningProfile, input: TuningInput): Change[] | string {
  const t = input.topology;
  switch (key) {
    case 'autonuma':
      return autonumaChanges(wanted(p, key)!);
    case 'autonumaScan':
      return autonumaWillRun(p, input)
        ? scanChanges(wanted(p, key)!, t.kernel.numaBalancingScan)
        : 'AutoNUMA is off and stays off: its scan rate is unused';
    case 'thpEnabled':
      return thpChanges('enabled', wanted(p, key)!);
    case 'thpDefrag':
      return thpChanges('defrag', wanted(p, key)!);
    case 'zoneReclaim':
      return zoneReclaimChanges(wanted(p, key)!);
    case 'swappiness':
      return swappinessChanges(wanted(p, key)!);
    case 'ksm':
      return ksmChanges(wanted(p, key)!, input.services);
    case 'governor':
      return governorChanges(wanted(p, key)!, t);
    case 'irq':
      return irqChanges(wanted(p, key)!, t, input.services, input.irqbalanceBanned ?? null);
    case 'rps': {
      const nics = rpsNics(t, input.irqTotals);
      return nics.length > 0
        ? rpsChanges(wanted(p, key)!, t, nics)
        : "no busy NIC (>= 10 Gb/s or 1M interrupts) with fewer rx queues than half its node's CPUs";
    }
    case 'rqAffinity':
      return rqAffinityChanges(wanted(p, key)!, t);
    case 'tuned':
      return `${wanted(p, key)!.value.profile}: not a runtime change (--persist writes a tuned profile including it; tuned-adm activates it)`;
    case 'demotion':
      return demotionChanges(wanted(p, key)!);
    case 'promoteRate':
      return promoteRateChanges(wanted(p, key)!, p.facts.slowTierBandwidthMBps!);
  }
}

export function buildTuning(p: TuningProfile, input: TuningInput): TuningChanges {
  const settings: SettingChanges[] = [];
  const notes: TuningNote[] = [];
  for (const [key, r] of Object.entries(p.wants) as [SettingKey, NonNullable<TuningProfile['wants'][SettingKey]>][]) {
    if (r.state !== 'want') {
      notes.push({ setting: key, why: r.why });
      continue;
    }
    const c = changesFor(key, p, input);
    if (typeof c === 'string') notes.push({ setting: key, why: c });
    else if (c.length === 0) notes.push({ setting: key, why: 'no such device on this machine' });
    else settings.push({ setting: key, changes: c });
  }
  return { settings, notes };
}

export function allChanges(t: TuningChanges): Change[] {
  return t.settings.flatMap((s) => s.changes);
}
