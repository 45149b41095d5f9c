// The system changes bench ab makes around runs, each a journaled change set like any apply
// (numakit journal lists them; numakit rollback undoes them after a crash): an apply profile
// for a `tuned:PROFILE` variant, and kernel.numa_balancing for --numa-balancing on|off.
import { applyPlan, changesNeedingRoot } from '../actuate/apply.js';
import { acquireLock } from '../actuate/journal.js';
import { undoChangeSet } from '../actuate/rollback.js';
import type { System } from '../actuate/system.js';
import { planChanges } from '../actuate/targets.js';
import { dedupeChanges, type Change, type ChangeSet, type PlannedChange } from '../model/change.js';
import { NumakitError } from '../model/errors.js';

/**
 * A tuned:PROFILE variant's plan from `profile`, what `numakit apply --profile NAME` would change
 * here (AbArgs.profileChanges). With --numa-balancing on|off (`holdsNumaBalancing`) the bench
 * holds kernel.numa_balancing for every variant, so the profile's own value for it (the database
 * profile wants AutoNUMA on for an unbound process) is left out: the explicit option wins.
 */
export function profilePlan(
  sys: System,
  profile: readonly Change[],
  o: { holdsNumaBalancing?: boolean } = {},
): PlannedChange[] {
  const changes = dedupeChanges([...profile]);
  return planChanges(sys, o.holdsNumaBalancing === true ? changes.filter((c) => !isNumaBalancing(c)) : changes);
}

export const isNumaBalancing = (c: Change): boolean => c.kind === 'sysctl' && c.target === 'kernel.numa_balancing';

export function numaBalancingPlan(sys: System, value: 'on' | 'off'): PlannedChange[] {
  const c: Change = {
    kind: 'sysctl',
    target: 'kernel.numa_balancing',
    value: value === 'on' ? '1' : '0',
    reason: `bench ab --numa-balancing ${value}`,
  };
  return planChanges(sys, [c]);
}

/** Refuses, before any run, a plan this process may not write. */
export function requireWritable(sys: System, plan: readonly PlannedChange[], what: string): void {
  const denied = changesNeedingRoot(sys, plan);
  if (denied.length > 0)
    throw new NumakitError(
      `bench ab: ${what} needs root: ${denied.length} change(s) not writable by uid ${process.getuid?.()}: ${denied.join(', ')}; nothing was changed`,
    );
}

/** Applies a plan as a change set; null when there was nothing to change. */
export function applyChanges(
  sys: System,
  plan: readonly PlannedChange[],
  o: { stateDir: string; source: string },
): ChangeSet | null {
  if (!plan.some((p) => p.action === 'change')) return null;
  return applyPlan(sys, plan, { stateDir: o.stateDir, source: o.source });
}

/** Rolls a change set back under the journal lock; throws with what could not be put back. */
export function undoChanges(sys: System, cs: ChangeSet, stateDir: string): void {
  const release = acquireLock(stateDir);
  try {
    const r = undoChangeSet(sys, cs, { stateDir });
    if (r.failures.length > 0)
      throw new NumakitError(
        `bench ab: could not restore ${r.failures.join('; ')} (change set ${cs.id}; try numakit rollback)`,
      );
  } finally {
    release();
  }
}
