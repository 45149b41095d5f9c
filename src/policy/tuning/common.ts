// Building blocks shared by the tuning profiles. Each returns Change[] for one concern.
import type { Change } from '../../model/change.js';
import { formatCpuList, formatCpuMask } from '../../model/cpuset.js';
import { cpusOfNode, type Device, type Topology } from '../../model/topology.js';
import type { TuningInput } from './input.js';

const THP = 'sys/kernel/mm/transparent_hugepage';

export function sysctl(target: string, value: string | number, reason: string): Change {
  return { kind: 'sysctl', target, value: String(value), reason };
}

export function sysfs(target: string, value: string | number, reason: string): Change {
  return { kind: 'sysfs', target, value: String(value), reason };
}

export function thp(enabled: string, defrag: string, reason: string): Change[] {
  return [sysfs(`${THP}/enabled`, enabled, reason), sysfs(`${THP}/defrag`, defrag, reason)];
}

function nodeCpus(topo: Topology, dev: Device): number[] {
  return dev.node === null ? [] : cpusOfNode(topo, dev.node).filter((c) => c.online).map((c) => c.id);
}

/**
 * Every IRQ of each NIC on the CPUs of the NIC's node. Devices whose node is unknown are left
 * alone (never guessed as node 0). NVMe queue IRQs are kernel-managed (writes fail with EIO),
 * so NVMe gets rq_affinity instead (nvmeCompletionChanges).
 */
export function nicIrqChanges(topo: Topology): Change[] {
  const out: Change[] = [];
  for (const dev of topo.devices) {
    const cpus = nodeCpus(topo, dev);
    if (dev.kind !== 'net' || cpus.length === 0) continue;
    for (const irq of dev.irqs) {
      out.push({ kind: 'irq-affinity', target: irq, value: formatCpuList(cpus), device: dev.name, reason: `${dev.name} is on node ${dev.node}` });
    }
  }
  return out;
}

/** rq_affinity 2: complete each block request on the CPU that issued it. */
export function nvmeCompletionChanges(topo: Topology): Change[] {
  const out: Change[] = [];
  for (const dev of topo.devices) {
    if (dev.kind !== 'nvme') continue;
    const namespaces = String(dev.details.namespaces ?? '').split(',').filter((n) => n !== '');
    for (const ns of namespaces) {
      out.push(sysfs(`sys/class/block/${ns}/queue/rq_affinity`, 2, 'complete I/O on the submitting CPU (its node)'));
    }
  }
  return out;
}

/**
 * RPS/RFS (Documentation/networking/scaling.rst): each rx queue steers to the CPUs of the
 * NIC's node; rps_flow_cnt = rps_sock_flow_entries / queues. The kernel rounds the flow count
 * up to a power of two and reads that back, so it is chosen as one.
 */
export function rpsChanges(topo: Topology, sockFlowEntries: number): Change[] {
  const out: Change[] = [];
  for (const dev of topo.devices) {
    const cpus = nodeCpus(topo, dev);
    const rx = dev.queues?.rx ?? 0;
    if (dev.kind !== 'net' || cpus.length === 0 || rx === 0) continue;
    const flows = 2 ** Math.floor(Math.log2(Math.max(1, sockFlowEntries / rx)));
    for (let q = 0; q < rx; q++) {
      const dir = `sys/class/net/${dev.name}/queues/rx-${q}`;
      out.push(sysfs(`${dir}/rps_cpus`, formatCpuMask(cpus), `steer ${dev.name} receive work to node ${dev.node}`));
      out.push(sysfs(`${dir}/rps_flow_cnt`, flows, 'RFS: flows per queue = rps_sock_flow_entries / queues'));
    }
  }
  if (out.length > 0) out.unshift(sysctl('net.core.rps_sock_flow_entries', sockFlowEntries, 'RFS: global flow table'));
  return out;
}

/** irqbalance rewrites IRQ masks every few seconds: stop it when a profile pins IRQs itself. */
export function irqbalanceChanges(input: TuningInput, changes: readonly Change[]): Change[] {
  const pins = changes.some((c) => c.kind === 'irq-affinity');
  if (!pins || input.services.irqbalance !== 'running') return [];
  return [{ kind: 'service', target: 'irqbalance', value: 'stopped', reason: 'it would move the pinned IRQs back' }];
}

/** KSM off: merging pages across processes ignores nodes. ksmtuned first, or it turns KSM back on. */
export function ksmOffChanges(input: TuningInput): Change[] {
  const out: Change[] = [];
  if (input.services.ksmtuned === 'running') out.push({ kind: 'service', target: 'ksmtuned', value: 'stopped', reason: 'it starts KSM again' });
  out.push(sysfs('sys/kernel/mm/ksm/run', 0, 'KSM merges pages across nodes and scans in the background'));
  return out;
}
