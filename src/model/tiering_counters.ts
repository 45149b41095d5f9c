// Memory tiering's page counters, per node (nodeN/vmstat) or system-wide (/proc/vmstat):
// pgpromote_success (pages promoted into the node, 5.18+) and pgdemote_kswapd/_direct/
// _khugepaged/_proactive (pages demoted out of it by reclaim, 5.18+; _proactive 6.10+), named
// here as one `pgdemote` total. A kernel without them has none: absent, never zero. Pure.

export const PROMOTED = 'pgpromote_success';
export const DEMOTED = 'pgdemote';

/** The tiering counters a vmstat holds: pgpromote_success and pgdemote (the pgdemote_* summed). */
export function tieringCounters(vmstat: Readonly<Record<string, number>> | null): Record<string, number> {
  if (vmstat === null) return {};
  const out: Record<string, number> = {};
  if (vmstat[PROMOTED] !== undefined) out[PROMOTED] = vmstat[PROMOTED];
  const demoted = Object.entries(vmstat).filter(([k]) => k.startsWith('pgdemote_'));
  if (demoted.length > 0) out[DEMOTED] = demoted.reduce((s, [, v]) => s + v, 0);
  return out;
}
