// --json of apply (the plan, dry run or written), rollback and journal: schemaVersion 1, each
// change set as the journal records it (docs/json.md). Pure.
import type { ChangeSet, PlannedChange } from '../model/change.js';

export const CHANGES_SCHEMA_VERSION = 1;

export function plannedJson(p: PlannedChange): Record<string, unknown> {
  return { ...p.change, path: p.path, current: p.current, action: p.action };
}

export function changeSetJson(cs: ChangeSet, running: boolean): Record<string, unknown> {
  return { ...cs, status: cs.status === 'applying' && !running ? 'interrupted' : cs.status };
}

/** apply --json: the plan, and the change set when --yes wrote it. */
export function renderApplyJson(
  plan: readonly PlannedChange[],
  o: { source: string; dryRun: boolean; changeSet?: ChangeSet; persist: readonly string[] },
): string {
  const count = (a: PlannedChange['action']) => plan.filter((p) => p.action === a).length;
  return `${JSON.stringify(
    {
      schemaVersion: CHANGES_SCHEMA_VERSION,
      source: o.source,
      dryRun: o.dryRun,
      summary: { change: count('change'), same: count('same'), absent: count('absent') },
      changes: plan.map(plannedJson),
      persist: o.persist,
      changeSet: o.changeSet === undefined ? null : changeSetJson(o.changeSet, false),
    },
    null,
    2,
  )}\n`;
}

export function renderChangeSetsJson(
  key: 'changeSets' | 'changeSet',
  value: unknown,
  extra: Record<string, unknown> = {},
): string {
  return `${JSON.stringify({ schemaVersion: CHANGES_SCHEMA_VERSION, ...extra, [key]: value }, null, 2)}\n`;
}
