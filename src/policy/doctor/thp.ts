// Rule 5: transparent huge pages against the profile (policy/knowledge). THP "always" makes
// khugepaged collapse and the fault path compact memory for JVM heaps and databases (GC stalls,
// periodic latency spikes: reports 000, 002); defrag "always" stalls allocations on direct
// compaction for every workload. The changes are apply's (policy/tuning/thp.ts).
import type { Finding } from '../../model/finding.js';
import type { Fact } from '../../model/fact.js';
import { formatValue } from '../knowledge/labels.js';
import { wanted } from '../knowledge/resolve.js';
import type { Advice, ThpWant } from '../knowledge/types.js';
import { thpChanges } from '../tuning/thp.js';
import { absentReason, commandsFor, evFact, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'thp';

function check(file: 'enabled' | 'defrag', f: Fact<string>, a: Advice<ThpWant> | null, p: Profile): Finding | null {
  if (f.value === null) return null;
  const id = `${ID}/${file}`;
  if (a === null || a.value.accept.includes(f.value))
    return pass(ID, id, `THP ${file} "${f.value}"${a === null ? '' : ` suits the ${p.name} profile`}`, [evFact(f)]);
  const changes = thpChanges(file, a);
  const { runtime, persistent } = commandsFor(changes);
  const want = a.value.prefer;
  return problem(ID, {
    id,
    severity: file === 'defrag' && p.name === 'general' ? 'info' : 'warning',
    evidence: [evFact(f)],
    changes,
    runtime,
    persistent,
    manual:
      file === 'enabled'
        ? [
            `or at boot: transparent_hugepage=${want} on the kernel command line (GRUB_CMDLINE_LINUX, then update-grub or grub2-mkconfig, and reboot); with tuned: [vm] transparent_hugepages=${want} in the active profile`,
          ]
        : [],
    title: `THP ${file} is "${f.value}"; the ${p.name} profile wants ${formatValue(file === 'enabled' ? 'thpEnabled' : 'thpDefrag', a.value)}`,
    why: a.reason,
  });
}

export const thp: Rule = {
  id: ID,
  number: 5,
  title: 'transparent huge pages (enabled, defrag) against the profile',
  check(input, profile): Finding[] {
    const k = input.topology.kernel;
    if (k.thpEnabled.value === null)
      return [
        notChecked(
          ID,
          ID,
          'transparent huge pages',
          absentReason(k.thpEnabled, 'kernel without CONFIG_TRANSPARENT_HUGEPAGE, or /sys not mounted'),
        ),
      ];
    return [
      check('enabled', k.thpEnabled, wanted(profile, 'thpEnabled'), profile),
      check('defrag', k.thpDefrag, wanted(profile, 'thpDefrag'), profile),
    ].filter((f): f is Finding => f !== null);
  },
};
