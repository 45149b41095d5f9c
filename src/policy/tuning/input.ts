// What the tuning changes are decided from: the machine, the services installed on it and the
// interrupt counts of its devices. Pure data.
import type { ServiceState } from '../../model/change.js';
import type { Topology } from '../../model/topology.js';

export interface TuningInput {
  readonly topology: Topology;
  /** Units installed here and their runtime state; a unit that is not installed is not listed. */
  readonly services: Readonly<Record<string, ServiceState>>;
  /** Interrupts served since boot per IRQ (from /proc/interrupts), to tell busy NICs; empty when unknown. */
  readonly irqTotals: Readonly<Record<number, number>>;
  /** IRQs the running irqbalance leaves alone (its socket); null or absent when none answers. */
  readonly irqbalanceBanned?: readonly number[] | null;
}

/** Units whose state tuning reads: pass their state in TuningInput.services. */
export const TUNING_UNITS = ['irqbalance', 'ksmtuned'] as const;
