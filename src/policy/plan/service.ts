// service: any program as a systemd template unit NAME@.service, one instance per NUMA node
// (--per-node) or on one node, each instance bound to its node's CPUs and memory.
import { UsageError } from '../../model/errors.js';
import { budgetGiB, budgetText, memoryPlan, onNodes, RESERVE_RULE } from './budget.js';
import { oneNodeNotes } from './machine.js';
import { chooseNode } from './choose_node.js';
import type { DecisionBase, Derivation, MachineShare, NodeShare } from './types.js';
import { weightedSpread } from './weighted.js';
import { planTuning } from './tuning.js';

export interface ServiceOptions {
  readonly name: string;
  readonly exec: string[];
  readonly perNode: boolean;
  readonly node?: number;
  readonly systemdVersion: number;
  readonly user: string | null;
  /** Memory-bandwidth-bound: weighted interleave over the node and its slower nodes when the arithmetic says so. */
  readonly bandwidthBound?: boolean;
}

/** An instance weighted-interleaved over its node and the slower nodes nearest it. */
export interface WeightedInstance {
  /** The interleave mask, its node first ("0,2"). */
  readonly mask: string;
  /** The machine's weights, node:weight ("0:3 1:3 2:1"), for the plan's notes. */
  readonly weights: string;
}

export interface ServiceDecision extends DecisionBase {
  readonly kind: 'service';
  readonly options: ServiceOptions;
  readonly instances: { node: number; cpuList: string; memoryMaxMib: number; weighted?: WeightedInstance }[];
}

function instance(m: MachineShare, s: NodeShare, bandwidthBound: boolean, d: Derivation[]) {
  const budget = budgetGiB(s.memGiB);
  const spread = bandwidthBound ? weightedSpread(m, s.node, d) : null;
  if (spread === null) return { node: s.node, cpuList: s.cpuList, memoryMaxMib: Math.floor(budget * 1024) };
  // Its node holds only its weight's share of the pages: the cgroup may hold budget / share
  // before the node's own budget is full (a full slower node spills back, as interleave does).
  const w = spread.nodes.map((n) => spread.weights.get(n)!);
  const share = w[0]! / w.reduce((a, b) => a + b, 0);
  return {
    node: s.node,
    cpuList: s.cpuList,
    memoryMaxMib: Math.floor((budget / share) * 1024),
    weighted: {
      mask: spread.nodes.join(','),
      weights: [...spread.weights.entries()].map(([n, x]) => `${n}:${x}`).join(' '),
    },
  };
}

/** What a weighted instance needs first: the machine's weights set (once, journaled). */
function weightedNotes(d: readonly Derivation[]): string[] {
  if (!d.some((x) => x.value.startsWith('weighted interleave'))) return [];
  return [
    `Before you start: \`numakit apply --interleave-weights hmat --yes\` sets the machine's weighted interleave weights from HMAT (add --persist /etc to keep them at boot); the instances spread by them (Linux 6.9+; systemd has no NUMAPolicy= for weighted interleave, so their ExecStart runs the program through \`numakit run -w\`).`,
  ];
}

export function planService(m: MachineShare, o: ServiceOptions): ServiceDecision {
  const d: Derivation[] = [];
  const nodes = o.perNode ? m.usable : [chooseNode(m, o.node, d)];
  if (o.perNode)
    d.push({
      what: 'instances',
      formula: `one per node with CPUs and memory: ${nodes.map((s) => s.node).join(', ')}`,
      value: `${nodes.length}`,
    });
  const notes = [...m.notes, ...oneNodeNotes(m)];
  const instances = nodes.map((s) => instance(m, s, o.bandwidthBound === true, d));
  notes.push(...weightedNotes(d));
  if (o.systemdVersion < 243)
    notes.push(
      `systemd ${o.systemdVersion} has no NUMAPolicy= (added in 243): the template runs the program through numactl with the instance name as the node.`,
    );
  for (const s of nodes)
    if (budgetGiB(s.memGiB) < 0.25)
      throw new UsageError(`service: ${budgetText(s.node, s.memGiB)}; a service bound there would have no room`);
  const memory = memoryPlan(
    m,
    onNodes(
      nodes.map((s) => s.node),
      [],
      'bind',
    ),
    `${o.exec[0]}'s own memory is not known to the plan: each instance gets MemoryMax= its node's budget (MemTotal minus ${RESERVE_RULE}), so one that outgrows it is stopped by its cgroup rather than filling the node it is bound to`,
  );
  return {
    kind: 'service',
    machine: m,
    tuning: planTuning('general', m),
    memory,
    options: o,
    instances,
    derivations: d,
    notes,
  };
}
