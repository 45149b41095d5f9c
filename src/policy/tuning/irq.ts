// Device interrupts on their own node, by the rule of knowledge/irq_placement.ts: NIC (and IB,
// GPU) IRQs get the CPUs of the device's node (an IRQ whose mask is already on the node is left
// alone: subset); devices whose node is unknown are never guessed
// as node 0. NVMe queue IRQs are kernel-managed (a write fails with EIO): NVMe gets rq_affinity
// instead (io.ts). In the pinned mode irqbalance, which rewrites hand-set affinities, keeps running
// and is steered off the pinned IRQs first (its socket's banned set, which also keeps the IRQs it
// already leaves alone); only an irqbalance without a reachable socket (< 1.8) is stopped. In the
// local mode it may keep running as it is (it places IRQs on their device's node).
import { formatIrqList, type Change, type ServiceState } from '../../model/change.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Device, Topology } from '../../model/topology.js';
import { deviceNodeCpus, placesIrqs } from '../knowledge/irq_placement.js';
import type { Advice, IrqMode } from '../knowledge/types.js';
import { service } from './change.js';

export function irqChange(irq: number, cpus: readonly number[], dev: Device, reason: string): Change {
  return {
    kind: 'irq-affinity',
    target: irq,
    value: formatCpuList(cpus),
    device: dev.name,
    ...(dev.pciAddress === null ? {} : { pci: dev.pciAddress }),
    reason,
    subset: true,
  };
}

/** Every IRQ of each device the IRQ rule places (knowledge/irq_placement.ts) on the CPUs of its node. */
export function nicIrqChanges(t: Topology, reason: string): Change[] {
  const out: Change[] = [];
  for (const dev of t.devices) {
    const cpus = deviceNodeCpus(t, dev);
    if (!placesIrqs(dev) || cpus.length === 0) continue;
    for (const irq of dev.irqs) out.push(irqChange(irq, cpus, dev, `${dev.name} is on node ${dev.node}: ${reason}`));
  }
  return out;
}

/**
 * `banned`: the IRQs the running irqbalance leaves alone now, from its socket; null when no
 * irqbalance answers there (not running, or too old for a socket).
 */
export function irqChanges(
  a: Advice<IrqMode>,
  t: Topology,
  services: Readonly<Record<string, ServiceState>>,
  banned: readonly number[] | null = null,
): Change[] {
  const pins = nicIrqChanges(t, a.reason);
  if (a.value !== 'pinned' || pins.length === 0) return pins;
  if (banned !== null) {
    const irqs = pins.flatMap((c) => (c.kind === 'irq-affinity' ? [c.target] : []));
    const ban: Change = {
      kind: 'irqbalance-ban',
      target: 'irqbalance',
      value: formatIrqList([...banned, ...irqs]),
      reason: 'irqbalance keeps running and leaves the pinned IRQs alone',
    };
    return [ban, ...pins];
  }
  const stop = services.irqbalance === 'running';
  return [
    ...(stop
      ? [service('irqbalance', 'stopped', 'it would move the pinned IRQs back and has no socket to steer it')]
      : []),
    ...pins,
  ];
}
