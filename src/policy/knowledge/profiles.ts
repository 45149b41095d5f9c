// Profile names, the same in doctor, apply and plan: one per workload class, plus the older
// names kept as aliases (each says what it maps to).
import { UsageError } from '../../model/errors.js';
import { TABLE } from './table.js';
import { CLASSES, type WorkloadClass } from './types.js';

/** Older or alternative names -> the class they mean. */
export const ALIASES: Readonly<Record<string, WorkloadClass>> = {
  'spark-pinned': 'spark',
  batch: 'spark',
  tiering: 'memory-tiering',
};

export interface ProfileRef {
  readonly klass: WorkloadClass;
  /** The name given when it was an alias ("spark-pinned"), else null. */
  readonly alias: string | null;
}

export function profileNamesText(): string {
  return `${CLASSES.join(', ')} (aliases: ${Object.entries(ALIASES)
    .map(([k, v]) => `${k} = ${v}`)
    .join(', ')})`;
}

export function profileByName(name: string, what = '--profile'): ProfileRef {
  if ((CLASSES as readonly string[]).includes(name)) return { klass: name as WorkloadClass, alias: null };
  const klass = ALIASES[name];
  if (klass !== undefined) return { klass, alias: name };
  throw new UsageError(`${what} ${name}: unknown profile; one of ${profileNamesText()}`);
}

/** "spark" or "spark (given as spark-pinned)". */
export function profileLabel(ref: ProfileRef): string {
  return ref.alias === null ? ref.klass : `${ref.klass} (given as ${ref.alias})`;
}

/** A note for stderr when an alias was used, else null. */
export function aliasNote(ref: ProfileRef): string | null {
  return ref.alias === null
    ? null
    : `profile '${ref.alias}' is an alias of '${ref.klass}' (${TABLE[ref.klass].summary}); the same name works in doctor, apply and plan`;
}
