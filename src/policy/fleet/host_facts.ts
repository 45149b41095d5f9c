// What a host contributes to a fleet report, derived from what doctor gathered on it: its
// topology shape (for topology classes) and the settings compared across the fleet. Pure.
import type { DoctorInput } from '../../model/doctor_input.js';
import { isPresent, type Fact } from '../../model/fact.js';
import type { Settings, TopologyShape } from '../../model/fleet.js';
import type { Topology } from '../../model/topology.js';

export function topologyShape(t: Topology): TopologyShape {
  const ids = t.nodes.map((n) => n.id);
  return {
    nodeIds: ids,
    cpus: t.nodes.map((n) => n.cpus.length),
    memBytes: t.nodes.map((n) => n.memTotalBytes),
    distances: t.nodes.map((n) => ids.map((id) => n.distances[id] ?? 0)),
  };
}

const text = <T>(f: Fact<T>, show: (v: T) => string = String): string | null => (isPresent(f) ? show(f.value) : null);

/** Kernel command-line arguments that decide NUMA behaviour (root=, quiet ... are not compared). */
const NUMA_ARGS =
  /^(numa|numa_balancing|transparent_hugepage|default_hugepagesz|hugepagesz|hugepages|isolcpus|nohz_full|rcu_nocbs)(=|$)/;

export function numaCmdline(cmdline: string): string {
  const args = cmdline.split(/\s+/).filter((a) => NUMA_ARGS.test(a));
  return args.length === 0 ? '(none)' : args.join(' ');
}

/** The governor most CPUs use, or "mixed: a x12, b x4". */
function governor(g: DoctorInput['governors']): string | null {
  if (!g.ok) return null;
  const counts = new Map<string, number>();
  for (const v of Object.values(g.value)) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size === 0) return null;
  if (counts.size === 1) return [...counts.keys()][0]!;
  return `mixed: ${[...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} x${n}`)
    .join(', ')}`;
}

/** Huge pages reserved, per size, summed over nodes: "2048kB:512 1048576kB:0". */
function hugepages(t: Topology): string | null {
  const by = new Map<number, number>();
  for (const n of t.nodes) for (const p of n.hugepages) by.set(p.sizeKb, (by.get(p.sizeKb) ?? 0) + p.total);
  if (by.size === 0) return null;
  return [...by]
    .sort((a, b) => a[0] - b[0])
    .map(([kb, total]) => `${kb}kB:${total}`)
    .join(' ');
}

/** Settings every Linux NUMA host has: a snapshot without them is incomplete. */
export const CORE_SETTINGS = [
  'kernel.numa_balancing',
  'transparent_hugepage/enabled',
  'vm.zone_reclaim_mode',
  'vm.swappiness',
] as const;

/** The settings a fleet report compares; null where the host's data lacks them. */
export function hostSettings(input: DoctorInput): Settings {
  const k = input.topology.kernel;
  const irqbalance = input.comms.ok ? (input.comms.value['irqbalance'] ? 'running' : 'not running') : null;
  return {
    'kernel.numa_balancing': text(k.numaBalancing),
    'numa_balancing scan_period_min_ms': text(k.numaBalancingScan.periodMinMs),
    'numa_balancing scan_size_mb': text(k.numaBalancingScan.sizeMb),
    'transparent_hugepage/enabled': text(k.thpEnabled),
    'transparent_hugepage/defrag': text(k.thpDefrag),
    'vm.zone_reclaim_mode': text(k.zoneReclaimMode),
    'vm.swappiness': text(k.swappiness),
    'ksm/run': text(input.ksm.run),
    'huge pages': hugepages(input.topology),
    'cpufreq governor': governor(input.governors),
    'tuned profile': isPresent(input.tunedProfile) ? input.tunedProfile.value.join(' ') || '(none)' : null,
    irqbalance,
    'kernel release': text(k.kernelRelease),
    'kernel command line (NUMA)': text(k.cmdline, numaCmdline),
  };
}
