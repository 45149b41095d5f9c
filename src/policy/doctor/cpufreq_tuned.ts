// Rule 19: CPU frequency governor and tuned. Throughput and latency profiles want the
// performance governor (report 000 used tuned throughput-performance); a power-saving tuned
// profile fights them, and throughput-performance itself sets THP "always" in its [vm]
// section, fighting profiles that want THP never/madvise (report 000 had to override it).
import type { DoctorInput } from '../../model/doctor_input.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import { absentReason, change, ev, evFact, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'cpufreq-tuned';
const POWER_SAVING = /^(powersave|balanced|balanced-battery|desktop|laptop-.*|.*-powersave)$/;
/** tuned profiles whose tuned.conf sets THP, and to what. */
const TUNED_THP: Record<string, string> = { 'throughput-performance': 'always' };

function governor(input: DoctorInput, profile: Profile): Finding {
  if (!input.governors.ok) return notChecked(ID, `${ID}/governor`, 'CPU frequency governor', input.governors.reason);
  const slow = Object.entries(input.governors.value).filter(([, g]) => g !== 'performance').map(([c, g]) => ({ cpu: Number(c), g }));
  const evidence = [ev(input.governors.source, [...new Set(Object.values(input.governors.value))].join(','))];
  if (!profile.wantsPerformanceGovernor || slow.length === 0) return pass(ID, `${ID}/governor`, `governor ${[...new Set(Object.values(input.governors.value))].join(',')}`, evidence);
  const cpus = slow.map((s) => s.cpu);
  return problem(ID, {
    id: `${ID}/governor`, severity: 'warning', evidence: [ev(`sys/devices/system/cpu/cpu${cpus[0]}/cpufreq/scaling_governor`, slow[0]!.g), ...evidence],
    title: `${cpus.length} CPU(s) (${formatCpuList(cpus)}) use the "${slow[0]!.g}" governor; the ${profile.name} profile wants "performance"`,
    why: 'clocks ramp up only after load arrives: short bursts and latency-sensitive requests run at low frequency',
    runtime: ['cpupower frequency-set -g performance'],
    persistent: [`tuned-adm profile ${profile.tunedWanted[0] ?? 'throughput-performance'} (sets the governor), or enable cpupower.service with GOVERNOR=performance`],
    changes: cpus.map((c) => change.sysfs(`sys/devices/system/cpu/cpu${c}/cpufreq/scaling_governor`, 'performance', 'performance governor')),
  });
}

function tunedFights(input: DoctorInput, profile: Profile, names: string[]): Finding | null {
  const saving = names.find((n) => POWER_SAVING.test(n));
  const thpClash = names.find((n) => clashes(n, profile));
  if (saving === undefined && thpClash === undefined) return null;
  const want = profile.tunedWanted[0] ?? 'throughput-performance';
  return problem(ID, {
    id: `${ID}/tuned`, severity: 'warning', evidence: [evFact(input.tunedProfile, (v) => v.join(' '))],
    title: saving !== undefined
      ? `tuned profile "${saving}" saves power; the ${profile.name} profile wants performance`
      : `tuned profile "${thpClash}" sets THP "${TUNED_THP[thpClash!]}"; the ${profile.name} profile wants "${profile.thpAllowed[0]}"`,
    why: 'tuned re-applies its settings at every start: it undoes the tuning numakit or a script made',
    runtime: saving !== undefined ? [`tuned-adm profile ${want}`] : [`tuned-adm profile ${thpClash}-numakit   # after creating the child profile below`],
    persistent: saving !== undefined ? [`tuned-adm profile ${want}`] : [`/etc/tuned/${thpClash}-numakit/tuned.conf: [main] include=${thpClash} and [vm] transparent_hugepages=${profile.thpAllowed[0]}`],
  });
}

/** A tuned profile that would itself set THP against the workload profile gets a child profile. */
function clashes(name: string, profile: Profile): boolean {
  return TUNED_THP[name] !== undefined && !profile.thpAllowed.includes(TUNED_THP[name]!);
}

function suggested(profile: Profile): string {
  const want = profile.tunedWanted[0]!;
  return clashes(want, profile) ? `${want}-numakit` : want;
}

function childProfile(profile: Profile): string[] {
  const want = profile.tunedWanted[0]!;
  if (!clashes(want, profile)) return [];
  return [`first create /etc/tuned/${want}-numakit/tuned.conf: [main] include=${want} and [vm] transparent_hugepages=${profile.thpAllowed[0]} (${want} alone sets THP ${TUNED_THP[want]})`];
}

function tuned(input: DoctorInput, profile: Profile): Finding {
  const f = input.tunedProfile;
  const running = input.comms.ok && input.comms.value['tuned'] !== undefined;
  if (f.value === null || f.value.length === 0 || !running) {
    if (profile.tunedWanted.length === 0) return pass(ID, `${ID}/tuned`, 'tuned not in use', [evFact(f, (v) => v.join(' '))]);
    if (!input.comms.ok && f.value === null) return notChecked(ID, `${ID}/tuned`, 'tuned profile', `${absentReason(f, 'tuned not installed')}; ${input.comms.reason}`);
    return problem(ID, {
      id: `${ID}/tuned`, severity: 'info', evidence: [evFact(f, (v) => v.join(' ') || '(none)'), ev('proc/*/comm', running ? 'tuned running' : 'no tuned')],
      title: `no tuned profile active; the ${profile.name} profile suggests "${suggested(profile)}"`,
      why: 'tuned sets the governor, energy-performance bias and scheduler knobs in one place and keeps them across reboots',
      runtime: [`systemctl enable --now tuned && tuned-adm profile ${suggested(profile)}`],
      persistent: [...childProfile(profile), 'tuned-adm persists the profile across reboots'],
      changes: [change.service('tuned', 'running', 'tuned keeps the performance settings')],
    });
  }
  return tunedFights(input, profile, f.value) ?? pass(ID, `${ID}/tuned`, `tuned profile ${f.value.join(' ')} suits the ${profile.name} profile`, [evFact(f, (v) => v.join(' '))]);
}

export const cpufreqTuned: Rule = {
  id: ID, number: 19, title: 'CPU frequency governor; tuned profile against the workload profile',
  check: (input, profile) => [governor(input, profile), tuned(input, profile)],
};
