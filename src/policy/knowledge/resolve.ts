// Table + machine + placement -> what a profile wants here, setting by setting. The one function
// doctor, apply and plan call, so they cannot disagree. A setting is wanted (with the table's
// advice), moot on this machine (one node; nothing to tier; AutoNUMA off so its scan rate is
// unused), or asked (it depends on a placement nobody could tell). No opinion: not in Wants.
import { memoryOnly, memoryOnlyInDramTier, slowerTier, slowTierBandwidthMBps } from '../../model/tiers.js';
import type { NodeId, Topology } from '../../model/topology.js';
import type { PlacementInfo } from './placement.js';
import type { ProfileRef } from './profiles.js';
import { TABLE } from './table.js';
import {
  isByPlacement,
  SETTINGS,
  type Advice,
  type Entry,
  type SettingKey,
  type SettingValues,
  type WorkloadClass,
} from './types.js';

export type Resolved<T> =
  | { readonly state: 'want'; readonly advice: Advice<T> }
  | { readonly state: 'moot'; readonly why: string }
  | {
      readonly state: 'ask';
      readonly why: string;
      readonly bound: Advice<T> | null;
      readonly unpinned: Advice<T> | null;
    };

export type Wants = { readonly [K in SettingKey]?: Resolved<SettingValues[K]> };

/** The facts about a machine that change what a profile wants. */
export interface MachineFacts {
  readonly nodes: number;
  /** Nodes with memory and no CPUs (CXL, PMEM, HBM): a slower tier. */
  readonly memoryOnlyNodes: number;
  /** uname -r, or null when unknown. */
  readonly kernelRelease: string | null;
  /**
   * Nodes in a memory tier slower than DRAM's (model/tiers.ts), what demotion and promotion work
   * on; the memory-only nodes where the kernel reports no tiers. Absent: taken as the memory-only nodes.
   */
  readonly slowerTierNodes?: readonly NodeId[];
  /** Memory-only nodes the kernel put in DRAM's own tier (no abstract distance for them). */
  readonly memoryOnlyInDramTier?: readonly NodeId[];
  /** The slowest write (else read) bandwidth of the slower tier's nodes from HMAT, MB/s; null when unknown. */
  readonly slowTierBandwidthMBps?: number | null;
}

export interface TuningProfile {
  readonly name: WorkloadClass;
  readonly ref: ProfileRef;
  readonly summary: string;
  readonly placement: PlacementInfo;
  readonly facts: MachineFacts;
  readonly wants: Wants;
}

export function machineFacts(t: Topology): MachineFacts {
  const slower = slowerTier(t).nodes;
  return {
    nodes: t.nodes.length,
    memoryOnlyNodes: memoryOnly(t).length,
    kernelRelease: t.kernel.kernelRelease.value,
    slowerTierNodes: slower,
    memoryOnlyInDramTier: memoryOnlyInDramTier(t).map((n) => n.id),
    slowTierBandwidthMBps: slowTierBandwidthMBps(t, slower),
  };
}

/** The reason nothing can be demoted or promoted here, or null when a slower tier exists. */
export function noSlowerTier(f: MachineFacts, what: 'demote to' | 'promote from'): string | null {
  if ((f.slowerTierNodes?.length ?? f.memoryOnlyNodes) > 0) return null;
  const shared = f.memoryOnlyInDramTier ?? [];
  if (shared.length > 0)
    return `memory-only node${shared.length > 1 ? 's' : ''} ${shared.join(',')} share${shared.length > 1 ? '' : 's'} DRAM's memory tier (no abstract distance from HMAT or CDAT): nothing to ${what}`;
  return `no memory-only (slower) node on this machine: nothing to ${what}`;
}

/** "6.1.0-13-amd64" >= [5, 18]. Unknown releases count as new enough (the file then decides). */
export function kernelAtLeast(release: string | null, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(release ?? '');
  if (m === null) return true;
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}

/** Settings that mean nothing on one node: there is nowhere else to place or take memory. */
const NUMA_ONLY: readonly SettingKey[] = ['autonuma', 'autonumaScan', 'zoneReclaim', 'irq', 'demotion', 'promoteRate'];

function moot(
  key: SettingKey,
  f: MachineFacts,
  autonuma: Resolved<SettingValues['autonuma']> | undefined,
): string | null {
  if (f.nodes <= 1 && NUMA_ONLY.includes(key)) return 'one NUMA node: nothing to place';
  if (key === 'demotion') return noSlowerTier(f, 'demote to');
  if (key === 'promoteRate') return promoteRateMoot(f, autonuma);
  if (key === 'autonumaScan' && autonuma?.state === 'moot')
    return 'the profile leaves AutoNUMA as it is here: its scan rate is not judged';
  if (key === 'autonumaScan' && autonuma?.state === 'want' && autonuma.advice.value === 'off')
    return 'AutoNUMA is to be off: its scan rate is unused';
  return null;
}

/** The promotion rate limit matters only where AutoNUMA promotes, and is judged against HMAT's bandwidth. */
function promoteRateMoot(f: MachineFacts, autonuma: Resolved<SettingValues['autonuma']> | undefined): string | null {
  const none = noSlowerTier(f, 'promote from');
  if (none !== null) return none;
  if (autonuma?.state !== 'want' || autonuma.advice.value !== 'tiering')
    return 'AutoNUMA is not to run in tiering mode: nothing is promoted';
  if ((f.slowTierBandwidthMBps ?? null) === null)
    return "the slower tier's bandwidth is unknown (no HMAT figures for its nodes): no limit to derive";
  return null;
}

function resolveOne<K extends SettingKey>(
  key: K,
  klass: WorkloadClass,
  f: MachineFacts,
  placement: PlacementInfo,
  autonuma: Resolved<SettingValues['autonuma']> | undefined,
): Resolved<SettingValues[K]> | undefined {
  const entry = TABLE[klass].settings[key] as Entry<SettingValues[K]> | undefined;
  if (entry === undefined) return undefined;
  const why = moot(key, f, autonuma);
  if (why !== null) return { state: 'moot', why };
  if (!isByPlacement(entry)) return tieringCheck(key, entry, f) ?? { state: 'want', advice: entry };
  if (placement.value === null) {
    if (entry.bound === null && entry.unpinned === null) return undefined;
    return {
      state: 'ask',
      why: `placement ${placement.detail}; give --placement bound|unpinned`,
      bound: entry.bound,
      unpinned: entry.unpinned,
    };
  }
  const advice = entry[placement.value];
  return advice === null ? undefined : { state: 'want', advice };
}

/** AutoNUMA's tiering mode needs slower nodes and a 5.18+ kernel. */
function tieringCheck<T>(key: SettingKey, advice: Advice<T>, f: MachineFacts): Resolved<T> | null {
  if (key !== 'autonuma' || advice.value !== 'tiering') return null;
  const none = noSlowerTier(f, 'promote from');
  if (none !== null) return { state: 'moot', why: none };
  if (!kernelAtLeast(f.kernelRelease, 5, 18))
    return {
      state: 'moot',
      why: `kernel ${f.kernelRelease} has no memory tiering mode (numa_balancing = 2 needs 5.18 or later)`,
    };
  return null;
}

export function resolveWants(klass: WorkloadClass, f: MachineFacts, placement: PlacementInfo): Wants {
  const out: Record<string, unknown> = {};
  const autonuma = resolveOne('autonuma', klass, f, placement, undefined);
  for (const key of SETTINGS) {
    const r = key === 'autonuma' ? autonuma : resolveOne(key, klass, f, placement, autonuma);
    if (r !== undefined) out[key] = r;
  }
  return out as Wants;
}

export function resolveProfile(ref: ProfileRef, f: MachineFacts, placement: PlacementInfo): TuningProfile {
  return {
    name: ref.klass,
    ref,
    summary: TABLE[ref.klass].summary,
    placement,
    facts: f,
    wants: resolveWants(ref.klass, f, placement),
  };
}

/** The advice a profile wants for a setting here, or null (no opinion, moot, or asked). */
export function wanted<K extends SettingKey>(p: TuningProfile, key: K): Advice<SettingValues[K]> | null {
  const r = p.wants[key] as Resolved<SettingValues[K]> | undefined;
  return r?.state === 'want' ? r.advice : null;
}
