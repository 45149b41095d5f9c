// PlanInput (read by src/discover/plan_input.ts) -> MachineShare: what each NUMA node offers a plan
// (CPUs, physical cores, memory, the NVMe and NICs the firmware places there), and the notes every
// plan must carry: memory-only nodes get no work, devices on an unknown node are not assigned.
import { formatCpuList } from '../../model/cpuset.js';
import { cpusOfNode, l3Groups, physicalCores, type Topology } from '../../model/topology.js';
import type { CgroupLimits, PlanInput } from '../../model/plan_input.js';
import { machineFacts } from '../knowledge/resolve.js';
import type { Derivation, MachineShare, NodeShare } from './types.js';

const GiB = 1024 ** 3;

/** 96.0 -> "96", 81.6 -> "81.6", 12.8 -> "12.8" (one decimal, as PLAN.md shows arithmetic). */
export function num(v: number): string {
  return `${Math.round(v * 100) / 100}`;
}

function coreGroups(cpus: readonly { id: number; siblings: number[] }[]): number[][] {
  const ids = new Set(cpus.map((c) => c.id));
  const seen = new Set<number>();
  const out: number[][] = [];
  for (const c of cpus) {
    if (seen.has(c.id)) continue;
    const group = [c.id, ...c.siblings.filter((x) => x !== c.id && ids.has(x))].sort((a, b) => a - b);
    group.forEach((x) => seen.add(x));
    out.push(group);
  }
  return out;
}

function share(topo: Topology, id: number): NodeShare {
  const node = topo.nodes.find((n) => n.id === id)!;
  const cpus = cpusOfNode(topo, id).filter((c) => c.online && c.allowed);
  const cores = physicalCores(cpus);
  const memBytes = node.memTotalBytes ?? 0;
  return {
    node: id,
    cpus: cpus.map((c) => c.id),
    cpuList: formatCpuList(cpus.map((c) => c.id)),
    physicalCores: cores,
    coreGroups: coreGroups(cpus),
    l3Groups: l3Groups(
      topo,
      cpus.map((c) => c.id),
    ),
    threadsPerCore: cores === 0 ? 1 : Math.max(1, Math.round(cpus.length / cores)),
    memBytes,
    memGiB: memBytes / GiB,
    freeGiB: node.memFreeBytes === null ? null : Math.round((node.memFreeBytes / GiB) * 100) / 100,
    nvme: topo.devices.filter((d) => d.kind === 'nvme' && d.node === id),
    nics: topo.devices.filter((d) => d.kind === 'net' && d.node === id),
  };
}

/** Each memory-only node under the usable node nearest it (lowest distance, then lowest id). */
function slowerNodes(
  topo: Topology,
  usable: readonly NodeShare[],
  memoryNodes: readonly number[],
): Record<number, number[]> {
  const out: Record<number, number[]> = {};
  const cpuNodes = usable.map((u) => u.node);
  for (const id of memoryNodes) {
    if (cpuNodes.includes(id) || cpuNodes.length === 0) continue;
    const row = topo.nodes.find((n) => n.id === id)?.distances ?? {};
    const near = cpuNodes.reduce((a, b) => ((row[b] ?? 255) < (row[a] ?? 255) ? b : a));
    (out[near] ??= []).push(id);
  }
  return out;
}

function deviceNotes(topo: Topology, usable: Set<number>): string[] {
  const notes: string[] = [];
  for (const d of topo.devices) {
    if (d.kind !== 'nvme' && d.kind !== 'net') continue;
    if (d.node === null) {
      notes.push(
        `${d.kind} ${d.name}: on an unknown node (firmware gives no numa_node), so it is not assigned to any node; find its slot with lspci -vv and decide by hand.`,
      );
    } else if (!usable.has(d.node)) {
      notes.push(
        `${d.kind} ${d.name} sits on node ${d.node}, which has no CPUs or no memory; nothing is bound next to it.`,
      );
    }
  }
  return notes;
}

/** The note of the bound plans (databases, JVMs, Redis, services) on a machine of one NUMA node. */
export function oneNodeNotes(m: MachineShare): string[] {
  return m.facts.nodes === 1
    ? [
        'This machine has one NUMA node: every CPU reaches all memory at the same distance, so binding keeps nothing more local (there is no remote memory to avoid); what still counts here is the memory arithmetic and, where the plan pins CPUs, the pinning.',
      ]
    : [];
}

/** Notes on the nodes the cgroup's cpuset keeps from the plan, whole or in part. */
function cpusetNotes(topo: Topology, id: number, memAllowed: boolean, limits: CgroupLimits): string[] {
  const online = cpusOfNode(topo, id).filter((c) => c.online);
  const denied = online.filter((c) => !c.allowed).map((c) => c.id);
  const cg =
    topo.cpuset === null
      ? ''
      : ` (cgroup ${topo.cpuset.cgroup}'s cpuset allows CPUs ${formatCpuList(topo.cpuset.cpus)})`;
  const notes: string[] = [];
  if (denied.length > 0 && denied.length === online.length)
    notes.push(
      `node ${id}: none of its CPUs (${formatCpuList(denied)}) is allowed to this process${cg}, so it gets no work.`,
    );
  else if (denied.length > 0) {
    const [cpus, are] = denied.length === 1 ? ['CPU', 'is'] : ['CPUs', 'are'];
    const allowed = formatCpuList(online.filter((c) => c.allowed).map((c) => c.id));
    notes.push(
      `node ${id}: ${cpus} ${formatCpuList(denied)} ${are} outside this process's cpuset${cg}; the plan sizes node ${id} from CPUs ${allowed}.`,
    );
  }
  if (!memAllowed && limits.mems !== null)
    notes.push(
      `node ${id}: its memory is outside cgroup ${limits.mems.cgroup}'s memory nodes (${formatCpuList(limits.mems.ids)}, /${limits.mems.path}), so it gets no work and no memory.`,
    );
  return notes;
}

/** The name of a cgroup memory limit's file: memory.max (v2) or memory.limit_in_bytes (v1). */
export function limitFile(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The derivation of a plan made inside a cpuset: which CPUs and memory nodes it sizes from. */
function restriction(topo: Topology, usable: NodeShare[], limits: CgroupLimits): Derivation | null {
  const online = topo.cpus.filter((c) => c.online);
  const allowed = online.filter((c) => c.allowed);
  const max = limits.memoryMax ?? null;
  if (allowed.length === online.length && limits.mems === null && max === null) return null;
  const mems = limits.mems === null ? [] : [`memory nodes ${formatCpuList(limits.mems.ids)} (/${limits.mems.path})`];
  const from = [
    ...(topo.cpuset === null ? [] : [`CPUs ${formatCpuList(topo.cpuset.cpus)} (/${topo.cpuset.path})`]),
    ...(max === null ? [] : [`${limitFile(max.path)} ${num(max.bytes / GiB)} GiB (/${max.path})`]),
  ];
  const cpus = usable.reduce((a, u) => a + u.cpus.length, 0);
  return {
    what: "this process's cgroup allows",
    formula: `${[...from, ...mems].join('; ')}; of the machine's ${online.length} online CPUs ${allowed.length} are allowed`,
    value: `${cpus} CPUs on node${usable.length === 1 ? '' : 's'} ${formatCpuList(usable.map((u) => u.node)) || 'none'}`,
  };
}

/**
 * The cgroup limits that restrict anything: memory nodes that leave a node with memory out, and a
 * memory limit below the machine's memory (v1 says "none" with a huge number).
 */
function effectiveLimits(topo: Topology, cgroup: CgroupLimits): CgroupLimits {
  const m = cgroup.mems;
  const total = topo.nodes.reduce((a, n) => a + (n.memTotalBytes ?? 0), 0);
  const max =
    cgroup.memoryMax !== undefined && cgroup.memoryMax !== null && cgroup.memoryMax.bytes < total
      ? cgroup.memoryMax
      : null;
  return {
    mems: m !== null && topo.nodes.some((n) => (n.memTotalBytes ?? 0) > 0 && !m.ids.includes(n.id)) ? m : null,
    memoryMax: max,
  };
}

/** The nodes with CPUs and memory the cgroup allows, and a note for each node left out saying why. */
function usableNodes(
  topo: Topology,
  limits: CgroupLimits,
  memAllowed: (id: number) => boolean,
): { usable: NodeShare[]; notes: string[] } {
  const notes: string[] = [];
  const usable: NodeShare[] = [];
  for (const n of topo.nodes) {
    const s = share(topo, n.id);
    const limited = cpusetNotes(topo, n.id, memAllowed(n.id), limits);
    notes.push(...limited);
    if (s.cpus.length > 0 && s.memBytes > 0 && memAllowed(n.id)) usable.push(s);
    else if (limited.length > 0) continue;
    else if (s.cpus.length === 0 && s.memBytes > 0)
      notes.push(
        `node ${n.id} is memory-only (no CPUs, ${num(s.memGiB)} GiB): it gets no executor or instance; it can only serve interleaved or spilled memory.`,
      );
    else if (s.cpus.length > 0)
      notes.push(`node ${n.id} has CPUs but no memory: work bound there would allocate remotely, so it gets none.`);
  }
  return { usable, notes };
}

export function machineShare(input: PlanInput): MachineShare {
  const { topology: topo, label, os, cgroup } = input;
  const limits = effectiveLimits(topo, cgroup);
  const max = limits.memoryMax ?? null;
  const memAllowed = (id: number) => limits.mems === null || limits.mems.ids.includes(id);
  const { usable, notes } = usableNodes(topo, limits, memAllowed);
  notes.push(...deviceNotes(topo, new Set(usable.map((u) => u.node))));
  const memNodes = topo.nodes.filter((n) => (n.memTotalBytes ?? 0) > 0 && memAllowed(n.id));
  const memoryNodes = memNodes.map((n) => n.id);
  const totalMemGiB = memNodes.reduce((a, n) => a + (n.memTotalBytes ?? 0), 0) / GiB;
  const cores = physicalCores(topo.cpus);
  const summary = `${topo.nodes.length} NUMA node${topo.nodes.length === 1 ? '' : 's'}, ${cores} physical cores, ${topo.cpus.filter((c) => c.online).length} CPUs, ${num(Math.round(totalMemGiB * 10) / 10)} GiB`;
  const k = topo.kernel;
  return {
    label,
    summary,
    usable,
    memoryNodes,
    slower: slowerNodes(topo, usable, memoryNodes),
    readBandwidth: Object.fromEntries(memNodes.map((n) => [n.id, n.access?.readBandwidthMBps ?? null] as const)),
    totalMemGiB,
    notes,
    restriction: restriction(topo, usable, limits),
    memoryMax: max === null ? null : { cgroup: max.cgroup, path: max.path, gib: max.bytes / GiB },
    kernel: {
      thp: k.thpEnabled.value,
      thpDefrag: k.thpDefrag.value,
      numaBalancing: k.numaBalancing.value,
      zoneReclaim: k.zoneReclaimMode.value,
      swappiness: k.swappiness.value,
    },
    facts: machineFacts(topo),
    os,
  };
}
