// Rule 20: demotion (sys/kernel/mm/numa/demotion_enabled, 5.15+) against the memory tiers. With
// it off, reclaim on a DRAM node drops page cache or swaps even while a slower tier has room;
// with it on, cold pages move down a tier instead. Judged only where a slower tier exists
// (model/tiers.ts): a CPU-less node in DRAM's own tier is never a demotion target.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { slowerTier } from '../../model/tiers.js';
import type { NodeId } from '../../model/topology.js';
import { noSlowerTier, wanted } from '../knowledge/resolve.js';
import { demotionChanges } from '../tuning/memory.js';
import { absentReason, commandsFor, evFact, notChecked, pass, problem, singleNode } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'demotion';

function tierEvidence(input: DoctorInput, nodes: readonly NodeId[]) {
  return nodes.map((id) => {
    const n = input.topology.nodes.find((x) => x.id === id)!;
    return n.memoryTier === null
      ? { path: `sys/devices/system/node/node${id}/cpulist`, value: '(empty): a memory-only node' }
      : { path: `sys/devices/virtual/memory_tiering/memory_tier${n.memoryTier}/nodelist`, value: `node ${id}` };
  });
}

function off(input: DoctorInput, profile: Profile, slower: readonly NodeId[]): Finding {
  const f = input.demotion;
  const evidence = [evFact(f), ...tierEvidence(input, slower)];
  const want = wanted(profile, 'demotion');
  const nodes = `node${slower.length > 1 ? 's' : ''} ${slower.join(',')}`;
  if (want !== null) {
    const changes = demotionChanges(want);
    return problem(ID, {
      id: ID,
      severity: 'warning',
      evidence,
      changes,
      ...commandsFor(changes),
      title: `demotion to the slower tier (${nodes}) is off; the ${profile.name} profile wants it on`,
      why: want.reason,
    });
  }
  return problem(ID, {
    id: ID,
    severity: 'info',
    evidence,
    title: `demotion is off while ${nodes} form a slower memory tier`,
    why: 'reclaim on a full DRAM node drops page cache or swaps instead of moving cold pages to the slower tier',
    runtime: [],
    persistent: [],
    manual: ['to use the slower tier as one: numakit apply --profile memory-tiering (demotion on, numa_balancing = 2)'],
  });
}

export const demotion: Rule = {
  id: ID,
  number: 20,
  title: 'demotion to a slower memory tier',
  check(input, profile): Finding[] {
    const t = input.topology;
    if (t.nodes.length <= 1) return [singleNode(ID, 'demotion')];
    const slower = slowerTier(t).nodes;
    const f = input.demotion;
    if (slower.length === 0) {
      const why = noSlowerTier(profile.facts, 'demote to') ?? 'no slower memory tier';
      return [pass(ID, ID, why, f.value === null ? [] : [evFact(f)])];
    }
    if (f.value === null)
      return [notChecked(ID, ID, 'demotion to slower nodes', absentReason(f, 'a kernel before 5.15 has no demotion'))];
    if (f.value) return [pass(ID, ID, `demotion to the slower tier (nodes ${slower.join(',')}) is on`, [evFact(f)])];
    return [off(input, profile, slower)];
  },
};
