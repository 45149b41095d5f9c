// Rule 3: kernel.numa_balancing against what the profile wants here (policy/knowledge): off for
// bound workloads, on for unpinned ones, tiering (2) for a slower memory tier. Where it depends
// on placement and nobody could tell (no process data, no --placement), it is not judged.
// Values: bit 0 = NUMA_BALANCING_NORMAL, bit 1 = NUMA_BALANCING_MEMORY_TIERING (5.18+).
import type { Finding } from '../../model/finding.js';
import { formatResolved } from '../knowledge/labels.js';
import type { Advice, AutonumaMode } from '../knowledge/types.js';
import { autonumaChanges } from '../tuning/autonuma.js';
import { absentReason, commandsFor, ev, evFact, notChecked, pass, problem, singleNode } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'numa-balancing';
const WORDS: Record<AutonumaMode, string> = { off: 'off', on: 'on', tiering: 'in tiering mode' };

function matches(mask: number, want: AutonumaMode): boolean {
  if (want === 'off') return mask === 0;
  if (want === 'on') return (mask & 1) === 1;
  return (mask & 2) === 2;
}

function state(mask: number): string {
  return mask === 0 ? 'off' : mask === 2 ? 'in tiering mode only' : mask === 3 ? 'on, with tiering' : 'on';
}

/** For tiering mode: the slower tier it promotes from. */
function promotesFrom(want: AutonumaMode, p: Profile): string {
  const nodes = p.facts.slowerTierNodes ?? [];
  if (want !== 'tiering' || nodes.length === 0) return '';
  return ` to promote hot pages from the slower tier (node${nodes.length > 1 ? 's' : ''} ${nodes.join(',')})`;
}

function against(mask: number, a: Advice<AutonumaMode>, p: Profile, path: string): Finding {
  const evidence = [ev(path, mask), ev('placement', p.placement.detail)];
  if (matches(mask, a.value)) return pass(ID, ID, `AutoNUMA ${state(mask)}, as the ${p.name} profile wants`, evidence);
  const changes = autonumaChanges(a);
  return problem(ID, {
    id: ID,
    severity: 'warning',
    evidence,
    changes,
    ...commandsFor(changes),
    title: `AutoNUMA is ${state(mask)}; the ${p.name} profile wants it ${WORDS[a.value]}${promotesFrom(a.value, p)}`,
    why: a.reason,
  });
}

export const numaBalancing: Rule = {
  id: ID,
  number: 3,
  title: 'kernel.numa_balancing against the profile and the placement of its processes',
  check(input, profile): Finding[] {
    const want = profile.wants.autonuma;
    if (want?.state === 'moot' && input.topology.nodes.length <= 1) return [singleNode(ID, 'AutoNUMA')];
    const f = input.topology.kernel.numaBalancing;
    if (f.value === null)
      return [
        notChecked(
          ID,
          ID,
          'AutoNUMA setting',
          absentReason(f, 'kernel without CONFIG_NUMA_BALANCING, or a container hiding /proc/sys'),
        ),
      ];
    if (want === undefined)
      return [
        pass(
          ID,
          ID,
          `AutoNUMA ${state(f.value)}; the ${profile.name} profile has no opinion here (${profile.placement.detail})`,
          [evFact(f)],
        ),
      ];
    if (want.state === 'moot') return [pass(ID, ID, `AutoNUMA ${state(f.value)}: ${want.why}`, [evFact(f)])];
    if (want.state === 'ask')
      return [
        notChecked(
          ID,
          ID,
          'AutoNUMA against placement',
          `the ${profile.name} profile wants AutoNUMA ${formatResolved('autonuma', want)}`,
          [evFact(f)],
        ),
      ];
    return [against(f.value, want.advice, profile, f.path)];
  },
};
