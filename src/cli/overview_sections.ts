// Extra sections of the no-argument overview, added by later features (doctor's top
// findings, stat's highlights). Each returns text or null; each loads what it needs lazily.
import type { Context } from './context.js';

export type OverviewSection = (ctx: Context) => Promise<string | null>;

export const OVERVIEW_SECTIONS: OverviewSection[] = [
  async (ctx) => (await import('./doctor_overview.js')).doctorOverview(ctx),
  async (ctx) => (await import('./stat_overview.js')).statOverview(ctx),
];
