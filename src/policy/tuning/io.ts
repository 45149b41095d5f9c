// I/O completion and receive steering: NVMe rq_affinity 2 (complete on the submitting CPU) and
// RPS/RFS on busy NICs with few queues (Documentation/networking/scaling.rst): each rx queue
// steers to the CPUs of the NIC's node, rps_flow_cnt = rps_sock_flow_entries / queues (the
// kernel rounds it up to a power of two and reads that back, so it is chosen as one).
import type { Change } from '../../model/change.js';
import { formatCpuMask } from '../../model/cpuset.js';
import type { Device, Topology } from '../../model/topology.js';
import type { Advice } from '../knowledge/types.js';
import { sysctl, sysfs } from './change.js';
import { deviceNodeCpus } from '../knowledge/irq_placement.js';

export const FLOW_ENTRIES = 32768;
const BUSY_SPEED_MBPS = 10000;
const BUSY_INTERRUPTS = 1_000_000;

export function nvmeNamespaces(t: Topology): string[] {
  return t.devices
    .filter((d) => d.kind === 'nvme')
    .flatMap((d) =>
      String(d.details.namespaces ?? '')
        .split(',')
        .filter((n) => n !== ''),
    );
}

export function rqAffinityChanges(a: Advice<2>, t: Topology): Change[] {
  return nvmeNamespaces(t).map((ns) => sysfs(`sys/class/block/${ns}/queue/rq_affinity`, a.value, a.reason));
}

/** Busy: a link of 10 Gb/s or more, or a million interrupts since boot. */
export function busyNic(d: Device, irqTotals: Readonly<Record<number, number>>): boolean {
  if (typeof d.details.speedMbps === 'number' && d.details.speedMbps >= BUSY_SPEED_MBPS) return true;
  return d.irqs.reduce((s, i) => s + (irqTotals[i] ?? 0), 0) >= BUSY_INTERRUPTS;
}

/** NICs that want RPS/RFS: busy, on a known node, with fewer rx queues than half its CPUs (a queue per core or so needs none). */
export function rpsNics(t: Topology, irqTotals: Readonly<Record<number, number>>): Device[] {
  return t.devices.filter((d) => {
    const rx = d.queues?.rx ?? 0;
    const cpus = deviceNodeCpus(t, d);
    return d.kind === 'net' && rx > 0 && cpus.length > 0 && rx * 2 <= cpus.length && busyNic(d, irqTotals);
  });
}

export function flowsPerQueue(rx: number): number {
  return 2 ** Math.floor(Math.log2(Math.max(1, FLOW_ENTRIES / rx)));
}

/** Per rx queue: rps_cpus = the node's CPUs (a non-empty part of them is left alone) and rps_flow_cnt; plus the global flow table. */
export function rpsChanges(a: Advice<'busy-nics'>, t: Topology, nics: readonly Device[]): Change[] {
  const out: Change[] = [];
  for (const d of nics) {
    const rx = d.queues?.rx ?? 0;
    const mask = formatCpuMask(deviceNodeCpus(t, d));
    for (let q = 0; q < rx; q++) {
      const dir = `sys/class/net/${d.name}/queues/rx-${q}`;
      out.push({
        ...sysfs(`${dir}/rps_cpus`, mask, `steer ${d.name} receive work to node ${d.node}: ${a.reason}`),
        subset: true,
      });
      out.push(
        sysfs(`${dir}/rps_flow_cnt`, flowsPerQueue(rx), 'RFS: flows per queue = rps_sock_flow_entries / queues'),
      );
    }
  }
  if (out.length > 0) out.unshift(sysctl('net.core.rps_sock_flow_entries', FLOW_ENTRIES, 'RFS: the global flow table'));
  return out;
}
