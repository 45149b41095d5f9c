// Access locality as a signal to the agent's placement: where a process's
// memory accesses go (model/access_locality.ts: the kernel's NUMA-balancing hinting faults per
// thread) against where its pages sit (numa_maps). The pages say how much is remote; the
// accesses say whether the remote part is used. When both are known the hysteresis judges the
// gain in accesses, so
//   - pages mostly remote but accesses local (the remote pages are cold): no move, skip
//     `cold-memory` (moving cold pages costs migration and TLB shootdowns for nothing);
//   - pages mostly local but accesses remote (the few remote pages are the hot ones): the move
//     of those pages (or of the threads to them) is made, though the page gain is under
//     --min-gain.
// Only with enough recent faults (MIN_ACCESS_FAULTS: fewer are noise) and for a placement of the
// whole process (a hot/cold thread split is judged on pages: the faults are the process's
// total). Pure.
import type { Placement, ProcessView } from './types.js';

/** Recent hinting faults under which access locality is not trusted as a signal. */
export const MIN_ACCESS_FAULTS = 32;

export interface AccessGain {
  /** Share of its recent accesses local to the thread that made them, now. */
  readonly now: number;
  /** Share of them on nodes local to its threads once placed: its nodes and the nodes moved there. */
  readonly after: number;
  readonly faults: number;
  readonly source: 'numa-faults' | 'pmu';
}

/** What a placement does to its accesses; null when no usable access signal is known. */
export function accessGain(p: ProcessView, pl: Placement): AccessGain | null {
  const a = p.access;
  if (a === undefined || a.kind !== 'ok' || a.faults < MIN_ACCESS_FAULTS || pl.split !== undefined) return null;
  const local = new Set([...pl.nodes, ...pl.moveFrom]);
  let hit = 0;
  for (const [n, f] of Object.entries(a.nodes)) if (local.has(Number(n))) hit += f;
  return { now: a.local, after: hit / a.faults, faults: a.faults, source: a.source };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** "accesses 30% -> 100% local (412 recent NUMA faults)" or, without a change, "accesses 97% local (...)". */
export function accessText(g: AccessGain, change: boolean): string {
  const what =
    change && Math.round(g.after * 100) !== Math.round(g.now * 100) ? `${pct(g.now)} -> ${pct(g.after)}` : pct(g.now);
  return `accesses ${what} local (${g.faults} recent ${g.source === 'pmu' ? 'PMU samples' : 'NUMA faults'})`;
}
