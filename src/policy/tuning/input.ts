// What a tuning profile decides from: the machine and the services installed on it. Pure data.
import type { Change, ServiceState } from '../../model/change.js';
import type { Topology } from '../../model/topology.js';

export interface TuningInput {
  readonly topology: Topology;
  /** Units installed here and their runtime state; a unit that is not installed is not listed. */
  readonly services: Readonly<Record<string, ServiceState>>;
}

export interface Profile {
  readonly name: string;
  /** One line for --help and `apply --list`. */
  readonly summary: string;
  /** The tuned profile the persistent form includes (tuned-adm's stock profiles). */
  readonly tunedBase: string;
  build(input: TuningInput): Change[];
}

/** Units whose state tuning reads: pass their state in TuningInput.services. */
export const TUNING_UNITS = ['irqbalance', 'ksmtuned'] as const;
