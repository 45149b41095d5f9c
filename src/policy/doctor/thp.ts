// Rule 5: transparent huge pages. THP "always" makes khugepaged collapse and the fault path
// compact memory for JVM heaps and databases (GC stalls, periodic latency spikes: reports 000,
// 002); defrag "always" stalls allocations on direct compaction for every workload.
import type { Change } from '../../model/change.js';
import type { Finding } from '../../model/finding.js';
import { absentReason, change, evFact, notChecked, pass, problem } from './make.js';
import type { Rule } from './rule.js';

const ID = 'thp';
const DIR = 'sys/kernel/mm/transparent_hugepage';

function setThp(file: 'enabled' | 'defrag', value: string): { runtime: string[]; persistent: string[]; changes: Change[] } {
  const boot = file === 'enabled' ? [`add transparent_hugepage=${value} to GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub / grub2-mkconfig and reboot`] : [];
  return {
    runtime: [`echo ${value} > /${DIR}/${file}`],
    persistent: [`echo 'w /${DIR}/${file} - - - - ${value}' >> /etc/tmpfiles.d/numakit.conf`, ...boot, ...(file === 'enabled' ? [`or, with tuned: [vm] transparent_hugepages=${value} in the active profile`] : [])],
    changes: [change.sysfs(`${DIR}/${file}`, value, `THP ${file} ${value}`)],
  };
}

export const thp: Rule = {
  id: ID, number: 5, title: 'transparent huge pages (enabled, defrag) against the profile',
  check(input, profile): Finding[] {
    const k = input.topology.kernel;
    const out: Finding[] = [];
    if (k.thpEnabled.value === null) return [notChecked(ID, ID, 'transparent huge pages', absentReason(k.thpEnabled, 'kernel without CONFIG_TRANSPARENT_HUGEPAGE, or /sys not mounted'))];
    const want = profile.thpAllowed[0]!;
    if (!profile.thpAllowed.includes(k.thpEnabled.value)) {
      out.push(problem(ID, {
        id: `${ID}/enabled`, severity: 'warning', evidence: [evFact(k.thpEnabled)], ...setThp('enabled', want),
        title: `THP is "${k.thpEnabled.value}"; the ${profile.name} profile wants "${want}"`,
        why: 'with THP always, khugepaged and fault-time compaction stall large heaps: GC pauses and periodic latency spikes',
      }));
    } else out.push(pass(ID, `${ID}/enabled`, `THP "${k.thpEnabled.value}" suits the ${profile.name} profile`, [evFact(k.thpEnabled)]));
    const d = k.thpDefrag;
    if (d.value === 'always') {
      const wantDefrag = want === 'always' ? 'madvise' : want;
      out.push(problem(ID, {
        id: `${ID}/defrag`, severity: profile.name === 'general' ? 'info' : 'warning', evidence: [evFact(d)], ...setThp('defrag', wantDefrag),
        title: 'THP defrag is "always": page faults stall on direct compaction',
        why: 'every huge page fault may compact memory synchronously, adding milliseconds to allocations under fragmentation',
      }));
    } else if (d.value !== null) out.push(pass(ID, `${ID}/defrag`, `THP defrag "${d.value}"`, [evFact(d)]));
    return out;
  },
};
