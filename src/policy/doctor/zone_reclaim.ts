// Rule 6: vm.zone_reclaim_mode. Non-zero makes the kernel reclaim (drop page cache, write back,
// even swap: bits 1, 2, 4) on the local node before allocating on a remote node with free
// memory. Documentation/admin-guide/sysctl/vm.rst.
import type { Finding } from '../../model/finding.js';
import { wanted } from '../knowledge/resolve.js';
import { zoneReclaimChanges } from '../tuning/memory.js';
import { absentReason, commandsFor, evFact, isMultiNode, notChecked, pass, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'zone-reclaim';

function bits(v: number): string {
  const names = [
    [1, 'reclaim'],
    [2, 'write dirty pages'],
    [4, 'swap'],
  ] as const;
  return names
    .filter(([b]) => (v & b) !== 0)
    .map(([, n]) => n)
    .join(' + ');
}

export const zoneReclaim: Rule = {
  id: ID,
  number: 6,
  title: 'vm.zone_reclaim_mode not 0',
  check(input, profile): Finding[] {
    const t = input.topology;
    if (!isMultiNode(t)) return [singleNode(ID, 'zone reclaim')];
    const f = t.kernel.zoneReclaimMode;
    const want = wanted(profile, 'zoneReclaim');
    if (f.value === null)
      return [
        notChecked(
          ID,
          ID,
          'vm.zone_reclaim_mode',
          absentReason(f, 'kernel without CONFIG_NUMA, or a container hiding /proc/sys'),
        ),
      ];
    if (f.value === 0 || want === null) return [pass(ID, ID, `zone_reclaim_mode is ${f.value}`, [evFact(f)])];
    const changes = zoneReclaimChanges(want);
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence: [evFact(f)],
        changes,
        ...commandsFor(changes),
        title: `zone_reclaim_mode is ${f.value} (${bits(f.value)}): the kernel reclaims locally before using another node`,
        why: 'page cache is dropped (and pages written back or swapped) on a full node while other nodes have free memory: I/O and latency spikes',
      }),
    ];
  },
};
