// Where a device's interrupts belong: the one judgement doctor reports (rule irq-locality) and
// apply acts on (policy/tuning/irq.ts builds the pins; actuate's satisfies() leaves alone an IRQ
// this rule finds placed). An IRQ is placed when its affinity mask (smp_affinity_list) is a
// non-empty subset of its device's node's CPUs: whoever delivers it then (the kernel's default,
// irqbalance, a hand), it stays on the node. Where it is served now (effective_affinity_list,
// else the mask) is reported beside the mask: a mask wider than the node that happens to be
// served on it today moves at the next irqbalance pass, CPU hotplug or reboot. Pure.
import { cpusOfNode, type Device, type DeviceKind, type Topology } from '../../model/topology.js';

/** Devices whose IRQ affinity is the admin's to set (NVMe queue IRQs are kernel-managed). */
export const PLACED_IRQ_KINDS: readonly DeviceKind[] = ['net', 'ib', 'gpu'];

/** A device whose IRQs this rule places: of a kind above, with IRQs, on a known node. */
export function placesIrqs(d: Device): boolean {
  return d.node !== null && d.irqs.length > 0 && PLACED_IRQ_KINDS.includes(d.kind);
}

/** Online CPUs of a device's node: where its IRQs belong; [] when its node is unknown (never guessed as 0). */
export function deviceNodeCpus(t: Topology, dev: Device): number[] {
  return dev.node === null
    ? []
    : cpusOfNode(t, dev.node)
        .filter((c) => c.online)
        .map((c) => c.id);
}

/** The mask keeps the IRQ on the node: non-empty and every CPU of it one of the node's. */
export function maskOnNode(mask: readonly number[], nodeCpus: readonly number[]): boolean {
  if (mask.length === 0) return false;
  const local = setOf(nodeCpus);
  return mask.every((c) => local.has(c));
}

/** A node's CPUs as a set, made once per list (doctor judges a device's 64 IRQs against the same list). */
const sets = new WeakMap<readonly number[], ReadonlySet<number>>();
function setOf(cpus: readonly number[]): ReadonlySet<number> {
  let s = sets.get(cpus);
  if (s === undefined) {
    s = new Set(cpus);
    sets.set(cpus, s);
  }
  return s;
}

export interface IrqJudgement {
  readonly irq: number;
  /** smp_affinity_list: the CPUs it may be delivered to. */
  readonly mask: readonly number[];
  /** The CPUs that serve it now: effective_affinity_list where the kernel has it, else the mask. */
  readonly served: readonly number[];
  readonly servedFrom: 'effective_affinity_list' | 'smp_affinity_list';
  /** The rule: placed when the mask keeps it on the node. */
  readonly placed: boolean;
  /** Some CPU serving it now is on the node (a wide mask may still be served there today). */
  readonly servedOnNode: boolean;
}

export function judgeIrq(
  i: { readonly irq: number; readonly affinity: readonly number[]; readonly effective: readonly number[] | null },
  nodeCpus: readonly number[],
): IrqJudgement {
  const effective = i.effective !== null && i.effective.length > 0;
  const served = effective ? i.effective! : i.affinity;
  const local = setOf(nodeCpus);
  return {
    irq: i.irq,
    mask: i.affinity,
    served,
    servedFrom: effective ? 'effective_affinity_list' : 'smp_affinity_list',
    placed: maskOnNode(i.affinity, nodeCpus),
    servedOnNode: served.some((c) => local.has(c)),
  };
}
