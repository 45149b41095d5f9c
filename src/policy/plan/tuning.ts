// "Before you start" of every plan: the knowledge table's settings for the profile the workload
// belongs to (policy/knowledge), resolved for this machine with the placement the plan itself
// makes (it binds its processes), each with what the machine says now where the snapshot
// tells. The same profile name works with numakit apply and doctor, which set and check them.
import { formatResolved, SETTING_LABELS } from '../knowledge/labels.js';
import { choosePlacement, type PlacementInfo } from '../knowledge/placement.js';
import { resolveProfile, type Resolved } from '../knowledge/resolve.js';
import { TABLE } from '../knowledge/table.js';
import type { SettingKey, SettingValues, WorkloadClass } from '../knowledge/types.js';
import type { MachineShare, PlanTuning, TuningRow } from './types.js';

function placementFor(klass: WorkloadClass): PlacementInfo {
  const fixed = TABLE[klass].placement;
  if (fixed !== 'depends')
    return choosePlacement(klass, undefined, () => {
      throw new Error('unreachable');
    });
  return { value: 'bound', how: 'plan', detail: 'bound: the plan binds its processes (NUMAPolicy=, numactl)' };
}

type Now = { now: string | null; ok: boolean | null };

function nowOf(key: SettingKey, r: Resolved<SettingValues[SettingKey]>, m: MachineShare): Now {
  const k = m.kernel;
  if (r.state !== 'want') return { now: null, ok: null };
  const v = r.advice.value as never;
  switch (key) {
    case 'autonuma': {
      if (k.numaBalancing === null) return { now: null, ok: null };
      const want = v as SettingValues['autonuma'];
      const ok =
        want === 'off'
          ? k.numaBalancing === 0
          : want === 'on'
            ? (k.numaBalancing & 1) === 1
            : (k.numaBalancing & 2) === 2;
      return { now: `${k.numaBalancing}`, ok };
    }
    case 'thpEnabled':
      return k.thp === null
        ? { now: null, ok: null }
        : { now: k.thp, ok: (v as SettingValues['thpEnabled']).accept.includes(k.thp) };
    case 'thpDefrag':
      return k.thpDefrag === null
        ? { now: null, ok: null }
        : { now: k.thpDefrag, ok: (v as SettingValues['thpDefrag']).accept.includes(k.thpDefrag) };
    case 'zoneReclaim':
      return k.zoneReclaim === null ? { now: null, ok: null } : { now: `${k.zoneReclaim}`, ok: k.zoneReclaim === 0 };
    case 'swappiness':
      return k.swappiness === null
        ? { now: null, ok: null }
        : { now: `${k.swappiness}`, ok: k.swappiness <= (v as number) };
    default:
      return { now: null, ok: null };
  }
}

export function planTuning(klass: WorkloadClass, m: MachineShare): PlanTuning {
  const placement = placementFor(klass);
  const profile = resolveProfile({ klass, alias: null }, m.facts, placement);
  const rows: TuningRow[] = [];
  for (const [key, r] of Object.entries(profile.wants) as [SettingKey, Resolved<SettingValues[SettingKey]>][]) {
    const n = nowOf(key, r, m);
    const status =
      r.state !== 'want' ? 'nothing' : key === 'tuned' ? 'persist' : n.ok === null ? 'check' : n.ok ? 'ok' : 'change';
    rows.push({ setting: key, label: SETTING_LABELS[key], want: formatResolved(key, r), now: n.now, status });
  }
  const flag = placement.how === 'plan' ? ' --placement bound' : '';
  return {
    profile,
    rows,
    apply: `numakit apply --profile ${klass}${flag}`,
    doctor: `numakit doctor --profile ${klass}${flag}`,
  };
}
