// service: any program as a systemd template unit NAME@.service, one instance per NUMA node
// (--per-node) or on one node, each instance bound to its node's CPUs and memory.
import { UsageError } from '../../model/errors.js';
import { budgetGiB, budgetText, memoryPlan, onNodes, RESERVE_RULE } from './budget.js';
import { oneNodeNotes } from './machine.js';
import { chooseNode } from './choose_node.js';
import type { DecisionBase, Derivation, MachineShare } from './types.js';
import { planTuning } from './tuning.js';

export interface ServiceOptions {
  readonly name: string;
  readonly exec: string[];
  readonly perNode: boolean;
  readonly node?: number;
  readonly systemdVersion: number;
  readonly user: string | null;
}

export interface ServiceDecision extends DecisionBase {
  readonly kind: 'service';
  readonly options: ServiceOptions;
  readonly instances: { node: number; cpuList: string; memoryMaxMib: number }[];
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
    instances: nodes.map((s) => ({
      node: s.node,
      cpuList: s.cpuList,
      memoryMaxMib: Math.floor(budgetGiB(s.memGiB) * 1024),
    })),
    derivations: d,
    notes,
  };
}
