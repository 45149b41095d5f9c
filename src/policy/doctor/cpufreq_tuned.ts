// Rule 19: CPU frequency governor and tuned, against the profile (policy/knowledge). Throughput
// and latency profiles want the performance governor (report 000 used tuned
// throughput-performance); a power-saving tuned profile fights them, and throughput-performance
// itself sets THP "always" in its [vm] section, fighting profiles that want THP never/madvise
// (report 000 had to override it): those get a child profile, created before it is activated.
import type { DoctorInput } from '../../model/doctor_input.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import { wanted } from '../knowledge/resolve.js';
import type { TunedWant } from '../knowledge/types.js';
import { governorChanges } from '../tuning/cpu.js';
import { absentReason, ev, evFact, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'cpufreq-tuned';
const POWER_SAVING = /^(powersave|balanced|balanced-battery|desktop|laptop-.*|.*-powersave)$/;
/** tuned profiles whose tuned.conf sets THP, and to what. */
const TUNED_THP: Record<string, string> = { 'throughput-performance': 'always' };
const GOVERNORS = '/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor';

function governor(input: DoctorInput, profile: Profile): Finding {
  if (!input.governors.ok) return notChecked(ID, `${ID}/governor`, 'CPU frequency governor', input.governors.reason);
  const want = wanted(profile, 'governor');
  const slow = Object.entries(input.governors.value)
    .filter(([, g]) => g !== 'performance')
    .map(([c, g]) => ({ cpu: Number(c), g }));
  const evidence = [ev(input.governors.source, [...new Set(Object.values(input.governors.value))].join(','))];
  if (want === null || slow.length === 0)
    return pass(
      ID,
      `${ID}/governor`,
      `governor ${[...new Set(Object.values(input.governors.value))].join(',')}`,
      evidence,
    );
  const cpus = slow.map((s) => s.cpu);
  const tuned = wanted(profile, 'tuned');
  return problem(ID, {
    id: `${ID}/governor`,
    severity: 'warning',
    evidence: [ev(`sys/devices/system/cpu/cpu${cpus[0]}/cpufreq/scaling_governor`, slow[0]!.g), ...evidence],
    title: `${cpus.length} CPU(s) (${formatCpuList(cpus)}) use the "${slow[0]!.g}" governor; the ${profile.name} profile wants "performance"`,
    why: want.reason,
    runtime: [`for g in ${GOVERNORS}; do echo performance > "$g"; done`],
    persistent: [`echo 'w ${GOVERNORS} - - - - performance' > /etc/tmpfiles.d/numakit-governor.conf`],
    manual:
      tuned === null
        ? []
        : [`or let tuned keep it: tuned profile ${suggested(profile, tuned.value)} (see ${ID}/tuned)`],
    changes: governorChanges(want, input.topology, cpus),
  });
}

/** A tuned profile that would itself set THP against the workload profile. */
function clashes(name: string, profile: Profile): boolean {
  const thp = wanted(profile, 'thpEnabled');
  return TUNED_THP[name] !== undefined && thp !== null && !thp.value.accept.includes(TUNED_THP[name]!);
}

function suggested(profile: Profile, t: TunedWant): string {
  return clashes(t.profile, profile) ? `${t.profile}-numakit` : t.profile;
}

/** Commands creating the child profile that keeps the workload's THP (before tuned-adm names it). */
function childProfile(base: string, profile: Profile): string[] {
  if (!clashes(base, profile)) return [];
  const dir = `/etc/tuned/${base}-numakit`;
  return [
    `mkdir -p ${dir}`,
    `printf '[main]\\ninclude=${base}\\n\\n[vm]\\ntransparent_hugepages=${wanted(profile, 'thpEnabled')!.value.prefer}\\n' > ${dir}/tuned.conf`,
  ];
}

function activate(profile: Profile, base: string, start: boolean): string[] {
  return [
    ...childProfile(base, profile),
    ...(start ? ['systemctl enable --now tuned'] : []),
    `tuned-adm profile ${clashes(base, profile) ? `${base}-numakit` : base}`,
  ];
}

function tunedFights(input: DoctorInput, profile: Profile, t: TunedWant | null, names: string[]): Finding | null {
  const saving = t === null ? undefined : names.find((n) => POWER_SAVING.test(n));
  const thpClash = names.find((n) => clashes(n, profile));
  if (saving === undefined && thpClash === undefined) return null;
  const thp = wanted(profile, 'thpEnabled');
  return problem(ID, {
    id: `${ID}/tuned`,
    severity: 'warning',
    evidence: [evFact(input.tunedProfile, (v) => v.join(' '))],
    title:
      saving !== undefined
        ? `tuned profile "${saving}" saves power; the ${profile.name} profile wants ${t!.profile}`
        : `tuned profile "${thpClash}" sets THP "${TUNED_THP[thpClash!]}"; the ${profile.name} profile wants "${thp!.value.prefer}"`,
    why: 'tuned re-applies its settings at every start: it undoes the tuning numakit or a script made',
    runtime: activate(profile, saving !== undefined ? t!.profile : thpClash!, false),
    persistent: [],
    manual: ['tuned-adm remembers the active profile across reboots'],
  });
}

function tuned(input: DoctorInput, profile: Profile): Finding {
  const f = input.tunedProfile;
  const t = wanted(profile, 'tuned');
  const running = input.comms.ok && input.comms.value['tuned'] !== undefined;
  if (f.value === null || f.value.length === 0 || !running) {
    if (t === null) return pass(ID, `${ID}/tuned`, 'tuned not in use', [evFact(f, (v) => v.join(' '))]);
    if (!input.comms.ok && f.value === null)
      return notChecked(
        ID,
        `${ID}/tuned`,
        'tuned profile',
        `${absentReason(f, 'tuned not installed')}; ${input.comms.reason}`,
      );
    return problem(ID, {
      id: `${ID}/tuned`,
      severity: 'info',
      evidence: [evFact(f, (v) => v.join(' ') || '(none)'), ev('proc/*/comm', running ? 'tuned running' : 'no tuned')],
      title: `no tuned profile active; the ${profile.name} profile suggests "${suggested(profile, t.value)}"`,
      why: 'tuned sets the governor, energy-performance bias and scheduler knobs in one place and keeps them across reboots',
      runtime: activate(profile, t.value.profile, true),
      persistent: [],
      manual: ['tuned-adm remembers the active profile across reboots'],
    });
  }
  return (
    tunedFights(input, profile, t?.value ?? null, f.value) ??
    pass(ID, `${ID}/tuned`, `tuned profile ${f.value.join(' ')} suits the ${profile.name} profile`, [
      evFact(f, (v) => v.join(' ')),
    ])
  );
}

export const cpufreqTuned: Rule = {
  id: ID,
  number: 19,
  title: 'CPU frequency governor; tuned profile against the workload profile',
  check: (input, profile) => [governor(input, profile), tuned(input, profile)],
};
