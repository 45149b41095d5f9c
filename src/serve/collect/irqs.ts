// IRQs of devices with a known node (NICs, NVMe, InfiniBand, GPUs) and where they are served:
// how many of a device's IRQs have no CPU of its node in their effective affinity (else the
// asked one), and its interrupts counted on CPUs of its node and of other nodes
// (/proc/interrupts). Unknown-node devices are left out: there is no "off" to measure.
import type { Topology } from '../../model/topology.js';
import { readInterrupts, readIrqServing } from '../../sysfs/irq.js';
import { family, s, type Family } from '../exposition.js';
import { guard, type CollectContext } from './context.js';

export interface DeviceIrqs {
  readonly device: string;
  readonly kind: string;
  readonly node: number;
  readonly irqs: number;
  readonly offNode: number;
  readonly localInterrupts: number;
  readonly remoteInterrupts: number;
}

/** Each CPU id's node (-1: none) and the number of node ids, per topology (kept while the topology object is). */
const NODE_OF_CPU = new WeakMap<Topology, { readonly nodeOf: Int32Array; readonly nodes: number }>();

export function nodeOfCpu(t: Topology): { readonly nodeOf: Int32Array; readonly nodes: number } {
  let m = NODE_OF_CPU.get(t);
  if (m === undefined) {
    let maxCpu = -1;
    for (const n of t.nodes) for (const cpu of n.cpus) maxCpu = Math.max(maxCpu, cpu);
    const nodeOf = new Int32Array(maxCpu + 1).fill(-1);
    for (const n of t.nodes) for (const cpu of n.cpus) nodeOf[cpu] = n.id;
    m = { nodeOf, nodes: Math.max(0, ...t.nodes.map((n) => n.id + 1)) };
    NODE_OF_CPU.set(t, m);
  }
  return m;
}

export function readDeviceIrqs(c: CollectContext, t: Topology): DeviceIrqs[] {
  const devices = t.devices.filter((d) => d.node !== null && d.irqs.length > 0 && d.kind !== 'block');
  if (devices.length === 0) return [];
  // Only the rows of these devices' IRQs are parsed (the file is IRQs x CPUs: 20 MB on 1,792
  // CPUs), each added up by node as it is read: no count is kept per CPU.
  const { nodeOf, nodes } = nodeOfCpu(t);
  const ints = guard(c, 'irqs', () =>
    readInterrupts(c.root, {
      irqs: new Set(devices.flatMap((d) => d.irqs)),
      sumBy: { groupOf: nodeOf, groups: nodes },
    }),
  );
  const byIrq = new Map((ints?.lines ?? []).map((l) => [l.irq, l]));
  return devices.map((d) => {
    let offNode = 0;
    let local = 0;
    let remote = 0;
    for (const irq of d.irqs) {
      const serving = guard(c, 'irqs', () => readIrqServing(c.root, irq)) ?? [];
      if (serving.length > 0 && !serving.some((cpu) => nodeOf[cpu] === d.node)) offNode++;
      const line = byIrq.get(irq);
      if (line === undefined) continue;
      // A CPU of no node (not in the topology) counts as remote, as one of another node.
      const here = line.sums?.[d.node!] ?? 0;
      local += here;
      remote += line.total - here;
    }
    return {
      device: d.name,
      kind: d.kind,
      node: d.node!,
      irqs: d.irqs.length,
      offNode,
      localInterrupts: local,
      remoteInterrupts: remote,
    };
  });
}

export function irqFamilies(ds: readonly DeviceIrqs[]): Family[] {
  const l = (d: DeviceIrqs) => ({ device: d.device, kind: d.kind, node: String(d.node) });
  return [
    family(
      'numakit_device_irqs',
      'gauge',
      'IRQs of a device (msi_irqs) with a known node',
      ds.map((d) => s(d.irqs, l(d))),
    ),
    family(
      'numakit_device_irqs_off_node',
      'gauge',
      'IRQs of the device served only by CPUs of other nodes (effective_affinity_list, else smp_affinity_list)',
      ds.map((d) => s(d.offNode, l(d))),
    ),
    family(
      'numakit_device_interrupts_total',
      'counter',
      'Interrupts of the device since boot (/proc/interrupts) on CPUs of its node (where="local") or of other nodes (where="remote")',
      ds.flatMap((d) => [
        s(d.localInterrupts, { ...l(d), where: 'local' }),
        s(d.remoteInterrupts, { ...l(d), where: 'remote' }),
      ]),
    ),
  ];
}
