// Extra sections of the no-argument overview, added by later features (doctor's top
// findings, stat's highlights). Each gives its text and the same facts as data for
// `numakit --json` (under its key), or null when it has nothing to say here; each loads what it
// needs lazily. A section that throws costs only itself: the overview names it in one line on
// stderr (its stack under NUMAKIT_DEBUG=1) and counts it in --json's sectionFailures.
import type { Topology } from '../model/topology.js';
import type { Context } from './context.js';

export interface OverviewSection {
  /** The section's key in `numakit --json`. */
  readonly key: string;
  /** `topology`: the overview's own discovery, for a section that needs it (not read twice). */
  run(ctx: Context, topology: Topology): Promise<{ text: string; data: unknown } | null>;
}

export const OVERVIEW_SECTIONS: OverviewSection[] = [
  { key: 'doctor', run: async (ctx, t) => (await import('./doctor_overview.js')).doctorOverview(ctx, t) },
  { key: 'stat', run: async (ctx) => (await import('./stat_overview.js')).statOverview(ctx) },
];
