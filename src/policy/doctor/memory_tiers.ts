// Rule 21: a memory-only node the kernel ranks with DRAM. A node's memory tier comes from its
// abstract distance (mm/memory-tiers.c): DRAM's default unless firmware performance data (ACPI
// HMAT; CDAT for CXL memory, read by the CXL and dax/kmem drivers, 6.7+) gives a larger one. In
// DRAM's tier a CPU-less node is neither a demotion target nor a promotion source, so demotion
// and numa_balancing = 2 can do nothing for it: it is plain NUMA memory.
import type { Finding } from '../../model/finding.js';
import { memoryOnly, memoryOnlyInDramTier, nodeAccess, slowerTier } from '../../model/tiers.js';
import type { NumaNode, Topology } from '../../model/topology.js';
import { kernelAtLeast } from '../knowledge/resolve.js';
import { TABLE } from '../knowledge/table.js';
import { ev, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'memory-tiers';

/** Why the kernel gave this node DRAM's abstract distance. */
function cause(t: Topology, n: NumaNode): string {
  const release = t.kernel.kernelRelease.value;
  if (nodeAccess(n) !== null && !kernelAtLeast(release, 6, 7))
    return `firmware gives HMAT figures for node ${n.id}, but kernel ${release} does not rank tiers by them (6.7 and later do), so it gets DRAM's default abstract distance`;
  return `no HMAT or CDAT performance data gives node ${n.id} an abstract distance of its own, so it gets DRAM's default`;
}

function shared(t: Topology, n: NumaNode, profile: Profile): Finding {
  const tier = n.memoryTier!;
  const tiering = TABLE[profile.name].settings.demotion !== undefined;
  const a = nodeAccess(n);
  return problem(ID, {
    id: `${ID}/node${n.id}`,
    severity: tiering ? 'warning' : 'info',
    evidence: [
      ev(
        `sys/devices/virtual/memory_tiering/memory_tier${tier}/nodelist`,
        t.nodes
          .filter((x) => x.memoryTier === tier)
          .map((x) => x.id)
          .join(','),
      ),
      ev(`sys/devices/system/node/node${n.id}/cpulist`, '(empty)'),
      ev(
        `sys/devices/system/node/node${n.id}/access0/initiators`,
        a === null ? 'absent (no HMAT)' : `read ${a.readLatencyNs ?? '?'} ns, ${a.readBandwidthMBps ?? '?'} MB/s`,
      ),
      ev('proc/sys/kernel/osrelease', t.kernel.kernelRelease.value ?? 'unknown'),
    ],
    title: `memory-only node ${n.id} shares DRAM's memory tier ${tier}: it is not a slower tier`,
    why: `${cause(t, n)}; pages are never demoted to it nor promoted from it, so demotion and numa_balancing = 2 can do nothing for it${tiering ? `, whatever the ${profile.name} profile sets` : ''}`,
    runtime: [],
    persistent: [],
    manual: [
      'firmware: enable the ACPI HMAT (for CXL memory, a kernel whose CXL driver reads the device CDAT, 6.7+), so the kernel ranks the node below DRAM',
      'or let a driver give it its own abstract distance: memory onlined through dax/kmem (daxctl reconfigure-device --mode=system-ram) is ranked from HMAT/CDAT, not as DRAM',
      `or treat it as plain NUMA memory: numakit run --membind or --interleave with node ${n.id}; demotion and numa_balancing = 2 do nothing for it`,
    ],
  });
}

export const memoryTiers: Rule = {
  id: ID,
  number: 21,
  title: "memory-only nodes the kernel ranks in DRAM's memory tier",
  check(input, profile): Finding[] {
    const t = input.topology;
    const only = memoryOnly(t);
    if (only.length === 0) return [pass(ID, ID, 'no memory-only node: no tier to rank')];
    const slower = slowerTier(t);
    if (slower.source === 'cpu-less')
      return [
        notChecked(
          ID,
          ID,
          'memory tiers of the memory-only nodes',
          'sys/devices/virtual/memory_tiering is absent: a kernel before 6.1 (or without memory tiers) reports none',
        ),
      ];
    const sharing = memoryOnlyInDramTier(t);
    const fine = only.filter((n) => slower.nodes.includes(n.id));
    return [
      ...sharing.map((n) => shared(t, n, profile)),
      ...fine.map((n) =>
        pass(ID, `${ID}/node${n.id}`, `memory-only node ${n.id} is in memory tier ${n.memoryTier}, below DRAM's`),
      ),
    ];
  },
};
