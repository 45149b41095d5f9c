// service: any program as a systemd template unit NAME@.service, one instance per NUMA node
// (--per-node) or on one node, each instance bound to its node's CPUs and memory.
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
  readonly instances: { node: number; cpuList: string }[];
}

export function planService(m: MachineShare, o: ServiceOptions): ServiceDecision {
  const d: Derivation[] = [];
  const nodes = o.perNode ? m.usable : [chooseNode(m, o.node, d)];
  if (o.perNode) d.push({ what: 'instances', formula: `one per node with CPUs and memory: ${nodes.map((s) => s.node).join(', ')}`, value: `${nodes.length}` });
  const notes = [...m.notes];
  if (o.systemdVersion < 243) notes.push(`systemd ${o.systemdVersion} has no NUMAPolicy= (added in 243): the template runs the program through numactl with the instance name as the node.`);
  return { kind: 'service', machine: m, tuning: planTuning('general', m), options: o, instances: nodes.map((s) => ({ node: s.node, cpuList: s.cpuList })), derivations: d, notes };
}
