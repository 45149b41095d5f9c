// The named tuning profiles of `numakit apply --profile NAME`.
import { UsageError } from '../../model/errors.js';
import { database } from './database.js';
import type { Profile } from './input.js';
import { latency } from './latency.js';
import { sparkPinned } from './spark_pinned.js';
import { throughput } from './throughput.js';

export const PROFILES: readonly Profile[] = [sparkPinned, database, throughput, latency];

export function profileByName(name: string): Profile {
  const p = PROFILES.find((x) => x.name === name);
  if (p === undefined) throw new UsageError(`unknown profile '${name}'; profiles: ${PROFILES.map((x) => x.name).join(', ')}`);
  return p;
}
