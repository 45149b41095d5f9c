// Rule 3: kernel.numa_balancing against the profile. Pinned workloads (one executor per node)
// want it off: it only adds scanning and page migration. Unpinned databases want it on.
// Both on and pinned processes at once: AutoNUMA works against the pinning.
// Values: bit 0 = NUMA_BALANCING_NORMAL, bit 1 = NUMA_BALANCING_MEMORY_TIERING (5.18+).
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { absentReason, confinedNode, ev, evFact, gib, isMultiNode, notChecked, pass, problem, singleNode, sysctlFix } from './make.js';
import { processViews, type ProcessView } from './process_view.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'numa-balancing';
const KEY = 'kernel.numa_balancing';
const PINNED_MIN = 2 ** 30;

function pinned(input: DoctorInput): ProcessView[] {
  if (!input.processes.ok) return [];
  return processViews(input.processes.value).filter((p) => p.totalBytes >= PINNED_MIN && confinedNode(input.topology, p.allowedCpus) !== null);
}

function againstProfile(on: boolean, input: DoctorInput, profile: Profile): Finding {
  const f = input.topology.kernel.numaBalancing;
  const evidence = [evFact(f)];
  if (profile.numaBalancing === 'off' && on) {
    return problem(ID, {
      id: ID, severity: 'warning', evidence, ...sysctlFix(KEY, 0),
      title: `AutoNUMA is on; the ${profile.name} profile pins its processes`,
      why: 'pinned processes already run next to their memory; AutoNUMA only adds page-table scans, hinting faults and page migrations back and forth',
    });
  }
  if (profile.numaBalancing === 'on' && !on) {
    return problem(ID, {
      id: ID, severity: 'warning', evidence, ...sysctlFix(KEY, 1),
      title: `AutoNUMA is off; the ${profile.name} profile relies on it`,
      why: 'an unpinned process keeps its memory where it was first touched; AutoNUMA moves hot pages to the threads that use them',
    });
  }
  return pass(ID, ID, `AutoNUMA ${on ? 'on' : 'off'}, as the ${profile.name} profile ${profile.numaBalancing === 'any' ? 'allows' : 'wants'}`, evidence);
}

// Where the profile wants AutoNUMA, the pinning is what should give (report 002: prefer
// numactl --preferred to hard binding); elsewhere AutoNUMA should.
function conflictFix(profile: Profile): { runtime: string[]; persistent: string[] } {
  if (profile.numaBalancing !== 'on') return sysctlFix(KEY, 0);
  return {
    runtime: ['taskset -acp <all CPUs> PID   # loosen the CPU pinning so AutoNUMA can move threads'],
    persistent: ['start it with numactl --preferred=N (or systemd NUMAPolicy=preferred NUMAMask=N) instead of a hard CPUAffinity/cpuset'],
  };
}

function conflict(on: boolean, input: DoctorInput, profile: Profile): Finding | null {
  const ps = pinned(input);
  if (!on || ps.length === 0) return null;
  const names = ps.slice(0, 5).map((p) => `${p.comm}(${p.pid}) ${gib(p.totalBytes)} on CPUs of node ${confinedNode(input.topology, p.allowedCpus)}`);
  return problem(ID, {
    id: `${ID}/pinned`, severity: 'warning', ...conflictFix(profile),
    evidence: [evFact(input.topology.kernel.numaBalancing), ...ps.slice(0, 5).map((p) => ev(`proc/${p.pid}/status`, `Cpus_allowed_list confined to one node`))],
    title: `AutoNUMA is on while ${ps.length} large process(es) are pinned to one node: ${names.join('; ')}`,
    why: 'the pinning and AutoNUMA fight: AutoNUMA keeps scanning and migrating pages of processes whose placement was chosen by hand',
  });
}

export const numaBalancing: Rule = {
  id: ID, number: 3, title: 'kernel.numa_balancing against the profile and against pinned processes',
  check(input, profile) {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'AutoNUMA')];
    const f = input.topology.kernel.numaBalancing;
    if (f.value === null) return [notChecked(ID, ID, 'AutoNUMA setting', absentReason(f, 'kernel without CONFIG_NUMA_BALANCING, or a container hiding /proc/sys'))];
    const on = (f.value & 1) === 1;
    const c = conflict(on, input, profile);
    const base = againstProfile(on, input, profile);
    // Under a pinning profile, the conflict finding already says "turn it off".
    return c !== null && base.severity !== 'pass' ? [base] : c !== null ? [c] : [base];
  },
};
