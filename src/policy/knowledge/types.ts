// The vocabulary of the knowledge table: workload classes, the settings each has an opinion on,
// and one piece of advice (a value, why, and where that comes from). Pure data.
import type { SourceId } from './sources.js';

export type WorkloadClass = 'general' | 'spark' | 'database' | 'latency' | 'throughput' | 'jvm' | 'memory-tiering';
export const CLASSES: readonly WorkloadClass[] = [
  'general',
  'spark',
  'database',
  'latency',
  'throughput',
  'jvm',
  'memory-tiering',
];

/** Where the workload's big processes run: bound by a plan, numactl, systemd NUMAPolicy=/CPUAffinity= or a cpuset, or left to the kernel. */
export type Placement = 'bound' | 'unpinned';

export type AutonumaMode = 'off' | 'on' | 'tiering';
/** pinned: each NIC's IRQs on its node's CPUs and irqbalance kept off them; local: served on the NIC's node, by hand or by irqbalance. */
export type IrqMode = 'pinned' | 'local';

export interface Advice<T> {
  readonly value: T;
  readonly reason: string;
  readonly sources: readonly SourceId[];
}

/** THP enabled/defrag: the value to set, and the values that are as good (left alone when found). */
export interface ThpWant {
  readonly prefer: string;
  readonly accept: readonly string[];
}

/** AutoNUMA scanning (kernel.numa_balancing_scan_*): values to set, and the range left alone. */
export interface ScanWant {
  readonly delayMs: number;
  readonly periodMinMs: number;
  readonly periodMaxMs: number;
  readonly sizeMb: number;
  /** scan_period_min_ms below this scans too often. */
  readonly minPeriodFloorMs: number;
  /** scan_period_min_ms above this reacts too slowly. */
  readonly minPeriodCeilingMs: number;
  /** scan_size_mb below this finds hot pages too slowly on large memory. */
  readonly sizeFloorMb: number;
}

/**
 * kernel.numa_balancing_promote_rate_limit_MBps as shares of the slower tier's bandwidth (HMAT,
 * the slowest of its nodes): `share` is set; anything from `floorShare` to `share` is left alone.
 */
export interface PromoteRateWant {
  readonly share: number;
  readonly floorShare: number;
}

/** A stock tuned profile that suits the class; others that are as good. */
export interface TunedWant {
  readonly profile: string;
  readonly accept: readonly string[];
}

/** Every setting the table has an opinion on, with the type of its value. */
export interface SettingValues {
  readonly autonuma: AutonumaMode;
  readonly autonumaScan: ScanWant;
  readonly thpEnabled: ThpWant;
  readonly thpDefrag: ThpWant;
  readonly zoneReclaim: 0;
  /** The most vm.swappiness may be (and what is set). */
  readonly swappiness: number;
  readonly ksm: 'off';
  readonly governor: 'performance';
  readonly irq: IrqMode;
  /** RPS/RFS on NICs that are busy (>= 10 Gb/s or >= 1M interrupts) with fewer rx queues than half their node's CPUs. */
  readonly rps: 'busy-nics';
  readonly rqAffinity: 2;
  readonly tuned: TunedWant;
  /** Demote cold pages to slower memory nodes (sys/kernel/mm/numa/demotion_enabled). */
  readonly demotion: 'on';
  /** Promotion to fast nodes held to a share of the slower tier's bandwidth. */
  readonly promoteRate: PromoteRateWant;
}

export type SettingKey = keyof SettingValues;

/** The settings in the order every command lists them. */
export const SETTINGS: readonly SettingKey[] = [
  'autonuma',
  'autonumaScan',
  'thpEnabled',
  'thpDefrag',
  'zoneReclaim',
  'swappiness',
  'ksm',
  'governor',
  'irq',
  'rps',
  'rqAffinity',
  'tuned',
  'demotion',
  'promoteRate',
];

/** Advice that depends on placement: what a bound and an unpinned workload want (null: no opinion). */
export interface ByPlacement<T> {
  readonly bound: Advice<T> | null;
  readonly unpinned: Advice<T> | null;
}

export type Entry<T> = Advice<T> | ByPlacement<T>;

export function isByPlacement<T>(e: Entry<T>): e is ByPlacement<T> {
  return 'bound' in e;
}

/** One row of the table: a workload class and what it wants of each setting it has an opinion on. */
export interface ClassEntry {
  readonly summary: string;
  /** How the class's processes are placed: fixed by what the class is, or it depends (detected or asked). */
  readonly placement: Placement | 'depends' | 'any';
  readonly settings: { readonly [K in SettingKey]?: Entry<SettingValues[K]> };
}
