// Rule 4: AutoNUMA scan parameters. Too short a scan_period_min_ms or too small a scan_size_mb
// makes scan storms (sy time, hinting faults); too long a period reacts too late.
// The knobs are sysctls (kernel.numa_balancing_scan_*) before 5.13 and debugfs files
// (/sys/kernel/debug/sched/numa_balancing/scan_*, root only) since; the fix follows the path read.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Fact } from '../../model/fact.js';
import type { Change } from '../../model/change.js';
import type { Finding } from '../../model/finding.js';
import { absentReason, change, evFact, isMultiNode, notChecked, pass, problem, singleNode } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'autonuma-scan';

interface Knob { readonly name: string; readonly fact: Fact<number>; readonly want: number }

function setKnob(k: Knob): { runtime: string; persistent: string; change: Change } {
  if (k.fact.path.startsWith('proc/sys/')) {
    const key = k.fact.path.slice('proc/sys/'.length).replace(/\//g, '.');
    return { runtime: `sysctl -w ${key}=${k.want}`, persistent: `echo '${key} = ${k.want}' >> /etc/sysctl.d/90-numakit.conf`, change: change.sysctl(key, k.want, `AutoNUMA ${k.name}`) };
  }
  // apply resolves the sysctl name to the debugfs file on 5.13+ kernels (actuate/targets.ts).
  return {
    runtime: `echo ${k.want} > /${k.fact.path}`,
    persistent: `echo 'w /${k.fact.path} - - - - ${k.want}' >> /etc/tmpfiles.d/numakit.conf   # debugfs knob: no sysctl on this kernel`,
    change: change.sysctl(`kernel.numa_balancing_${k.name}`, k.want, `AutoNUMA ${k.name}`),
  };
}

function knobs(input: DoctorInput, p: Profile): Knob[] {
  const s = input.topology.kernel.numaBalancingScan;
  const w = p.scan.suggest;
  return [
    { name: 'scan_delay_ms', fact: s.delayMs, want: w.delayMs },
    { name: 'scan_period_min_ms', fact: s.periodMinMs, want: w.periodMinMs },
    { name: 'scan_period_max_ms', fact: s.periodMaxMs, want: w.periodMaxMs },
    { name: 'scan_size_mb', fact: s.sizeMb, want: w.sizeMb },
  ];
}

function verdict(min: number, size: number, p: Profile): { kind: 'aggressive' | 'lazy'; what: string } | null {
  if (min < p.scan.periodMinAggressiveBelow || size < p.scan.sizeMbSmallBelow) {
    return { kind: 'aggressive', what: `scan_period_min_ms ${min} (profile floor ${p.scan.periodMinAggressiveBelow}), scan_size_mb ${size} (floor ${p.scan.sizeMbSmallBelow})` };
  }
  if (min > p.scan.periodMinLazyAbove) return { kind: 'lazy', what: `scan_period_min_ms ${min} (profile ceiling ${p.scan.periodMinLazyAbove})` };
  return null;
}

export const autonumaScan: Rule = {
  id: ID, number: 4, title: 'AutoNUMA scan parameters too aggressive or too lazy for the profile',
  check(input, profile): Finding[] {
    const t = input.topology;
    if (!isMultiNode(t)) return [singleNode(ID, 'AutoNUMA scan')];
    if (t.kernel.numaBalancing.value === null || (t.kernel.numaBalancing.value & 1) === 0) {
      return [pass(ID, ID, 'AutoNUMA is off: scan parameters unused', [evFact(t.kernel.numaBalancing)])];
    }
    const ks = knobs(input, profile);
    const absentKnob = ks.find((k) => k.fact.value === null);
    if (absentKnob) return [notChecked(ID, ID, 'AutoNUMA scan parameters', absentReason(absentKnob.fact, 'since 5.13 the scan knobs live in debugfs: mount it (mount -t debugfs none /sys/kernel/debug) and run as root'))];
    const v = verdict(ks[1]!.fact.value!, ks[3]!.fact.value!, profile);
    const evidence = ks.map((k) => evFact(k.fact));
    if (v === null) return [pass(ID, ID, `scan parameters suit the ${profile.name} profile`, evidence)];
    const fixes = ks.filter((k) => k.fact.value !== k.want).map(setKnob);
    return [problem(ID, {
      id: `${ID}/${v.kind}`, severity: v.kind === 'aggressive' ? 'warning' : 'info', evidence,
      title: `AutoNUMA scans ${v.kind === 'aggressive' ? 'too often or in too small steps' : 'too rarely'} for the ${profile.name} profile: ${v.what}`,
      why: v.kind === 'aggressive'
        ? 'each scan unmaps pages to catch hinting faults: frequent small scans cost system CPU time and migrate pages back and forth'
        : 'hot pages stay remote for minutes before AutoNUMA notices them',
      runtime: fixes.map((f) => f.runtime), persistent: fixes.map((f) => f.persistent), changes: fixes.map((f) => f.change),
    })];
  },
};
