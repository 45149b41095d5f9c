// Device interrupts on their own node. NIC IRQs get the CPUs of the NIC's node (an IRQ already
// on some of those CPUs is left alone: subset); devices whose node is unknown are never guessed
// as node 0. NVMe queue IRQs are kernel-managed (a write fails with EIO): NVMe gets rq_affinity
// instead (io.ts). In the pinned mode irqbalance, which rewrites hand-set affinities, is stopped
// first; in the local mode it may keep running (it places IRQs on their device's node).
import type { Change, ServiceState } from '../../model/change.js';
import { formatCpuList } from '../../model/cpuset.js';
import { cpusOfNode, type Device, type Topology } from '../../model/topology.js';
import type { Advice, IrqMode } from '../knowledge/types.js';
import { service } from './change.js';

/** Online CPUs of a device's node; [] when its node is unknown. */
export function deviceNodeCpus(t: Topology, dev: Device): number[] {
  return dev.node === null
    ? []
    : cpusOfNode(t, dev.node)
        .filter((c) => c.online)
        .map((c) => c.id);
}

export function irqChange(irq: number, cpus: readonly number[], dev: Device, reason: string): Change {
  return { kind: 'irq-affinity', target: irq, value: formatCpuList(cpus), device: dev.name, reason, subset: true };
}

/** Every IRQ of each NIC on the CPUs of the NIC's node. */
export function nicIrqChanges(t: Topology, reason: string): Change[] {
  const out: Change[] = [];
  for (const dev of t.devices) {
    const cpus = deviceNodeCpus(t, dev);
    if (dev.kind !== 'net' || cpus.length === 0) continue;
    for (const irq of dev.irqs) out.push(irqChange(irq, cpus, dev, `${dev.name} is on node ${dev.node}: ${reason}`));
  }
  return out;
}

export function irqChanges(
  a: Advice<IrqMode>,
  t: Topology,
  services: Readonly<Record<string, ServiceState>>,
): Change[] {
  const pins = nicIrqChanges(t, a.reason);
  const stop = a.value === 'pinned' && pins.length > 0 && services.irqbalance === 'running';
  return [...(stop ? [service('irqbalance', 'stopped', 'it would move the pinned IRQs back')] : []), ...pins];
}
