// Extra sections of the no-argument overview, added by later features (doctor's top
// findings, stat's highlights). Each gives its text and the same facts as data for
// `numakit --json` (under its key), or null when it has nothing to say here; each loads what it
// needs lazily.
import type { Context } from './context.js';

export interface OverviewSection {
  /** The section's key in `numakit --json`. */
  readonly key: string;
  run(ctx: Context): Promise<{ text: string; data: unknown } | null>;
}

export const OVERVIEW_SECTIONS: OverviewSection[] = [
  { key: 'doctor', run: async (ctx) => (await import('./doctor_overview.js')).doctorOverview(ctx) },
  { key: 'stat', run: async (ctx) => (await import('./stat_overview.js')).statOverview(ctx) },
];
