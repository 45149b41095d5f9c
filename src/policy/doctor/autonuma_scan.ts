// Rule 4: AutoNUMA scan parameters against the profile's range (policy/knowledge): scanning
// too often or in too small steps costs system CPU ("scan storms", report 002); too rarely and
// hot pages stay remote. The knobs are sysctls before 5.13 and debugfs files since; the fix
// follows the path read, and its changes are apply's (policy/tuning/autonuma.ts).
import type { Change } from '../../model/change.js';
import type { Finding } from '../../model/finding.js';
import { scanVerdict } from '../knowledge/scan.js';
import { autonumaRuns, scanChanges } from '../tuning/autonuma.js';
import { absentReason, commandsFor, evFact, notChecked, pass, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'autonuma-scan';

export const autonumaScan: Rule = {
  id: ID,
  number: 4,
  title: 'AutoNUMA scan parameters too aggressive or too lazy for the profile',
  check(input, profile): Finding[] {
    const t = input.topology;
    const want = profile.wants.autonumaScan;
    if (t.nodes.length <= 1) return [singleNode(ID, 'AutoNUMA scan')];
    if (!autonumaRuns(t.kernel.numaBalancing.value))
      return [pass(ID, ID, 'AutoNUMA is off: scan parameters unused', [evFact(t.kernel.numaBalancing)])];
    if (want === undefined || want.state !== 'want')
      return [
        pass(
          ID,
          ID,
          want?.state === 'moot'
            ? `scan parameters: ${want.why}`
            : `no scan rate wanted by the ${profile.name} profile`,
        ),
      ];
    const s = t.kernel.numaBalancingScan;
    const knobs = [s.delayMs, s.periodMinMs, s.periodMaxMs, s.sizeMb];
    const absentKnob = knobs.find((k) => k.value === null);
    if (absentKnob)
      return [
        notChecked(
          ID,
          ID,
          'AutoNUMA scan parameters',
          absentReason(
            absentKnob,
            'since 5.13 the scan knobs live in debugfs: mount it (mount -t debugfs none /sys/kernel/debug) and run as root',
          ),
        ),
      ];
    const v = scanVerdict(s.periodMinMs.value!, s.sizeMb.value!, want.advice.value);
    const evidence = knobs.map((k) => evFact(k));
    if (v === null) return [pass(ID, ID, `scan parameters suit the ${profile.name} profile`, evidence)];
    const all = scanChanges(want.advice, s);
    const changes = all.filter((c, i) => c.value !== String(knobs[i]!.value));
    const pathOf = (c: Change) => {
      const k = knobs[all.indexOf(c)]!;
      return k.path.startsWith('proc/sys/') ? null : k.path;
    };
    const named = { periodMin: s.periodMinMs, size: s.sizeMb };
    return [
      problem(ID, {
        id: `${ID}/${v.kind}`,
        severity: v.kind === 'aggressive' ? 'warning' : 'info',
        evidence: v.knobs.map((k) => evFact(named[k])),
        changes,
        ...commandsFor(changes, pathOf),
        title: `AutoNUMA scans ${v.kind === 'aggressive' ? 'too often or in too small steps' : 'too rarely'} for the ${profile.name} profile: ${v.what}`,
        why:
          v.kind === 'aggressive'
            ? 'each scan unmaps pages to catch hinting faults: frequent small scans cost system CPU time and migrate pages back and forth'
            : 'hot pages stay remote for minutes before AutoNUMA notices them',
      }),
    ];
  },
};
