// /etc/tuned/active_profile: the tuned profile(s) in force, space-separated ("throughput-performance",
// or "virtual-guest my-override" when merged). Empty when tuned runs with no profile.
import type { Fact } from '../model/fact.js';
import { SysfsParseError } from '../model/errors.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const TUNED_ACTIVE = 'etc/tuned/active_profile';

export function parseTunedProfile(text: string): string[] {
  const names = text
    .trim()
    .split(/\s+/)
    .filter((s) => s !== '');
  for (const n of names) {
    if (!/^[A-Za-z0-9_.+-]+$/.test(n)) throw new SysfsParseError('not a tuned profile name', { text: n });
  }
  return names;
}

export function readTunedProfile(root: SysRoot): Fact<string[]> {
  // Empty: tuned runs with no profile, a value ([]), not an absence.
  return readFact(root, TUNED_ACTIVE, parseTunedProfile, { emptyIsValue: true });
}
