// IRQ helpers shared by the irqbalance and IRQ-locality rules. Pure.
import type { DoctorInput, IrqInfo } from '../../model/doctor_input.js';
import type { Device, NodeId } from '../../model/topology.js';
import { PLACED_IRQ_KINDS } from '../knowledge/irq_placement.js';

/** Devices with IRQs that a NUMA placement cares about. */
export function irqDevices(input: DoctorInput): Device[] {
  return input.topology.devices.filter(
    (d) => d.irqs.length > 0 && (d.kind === 'nvme' || PLACED_IRQ_KINDS.includes(d.kind)),
  );
}

/** The IRQs of a device that were found in /proc/irq. */
export function deviceIrqs(input: DoctorInput, d: Device): IrqInfo[] {
  if (!input.irqs.ok) return [];
  const map = input.irqs.value;
  return d.irqs.map((n) => map[n]).filter((i): i is IrqInfo => i !== undefined);
}

/** The affinity equals one node's CPU list exactly (the shape of a hand-set per-node binding). */
export function looksHandSet(input: DoctorInput, i: IrqInfo): NodeId | null {
  const t = input.topology;
  if (i.affinity.length === 0 || i.affinity.length === t.cpus.filter((c) => c.online).length) return null;
  for (const n of t.nodes) {
    const cpus = n.cpus;
    if (cpus.length > 0 && cpus.length === i.affinity.length && cpus.every((c, k) => c === i.affinity[k])) return n.id;
  }
  return null;
}
