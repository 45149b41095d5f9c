// Rule 10: device IRQs served by CPUs of another node than the device's. For NICs (and other
// devices with writable affinity) the asked affinity is checked. NVMe queue IRQs are "managed":
// the kernel spreads one per CPU group and refuses changes, so a remote queue IRQ only serves
// I/O submitted from that remote node; there the counts tell whether most completions happen
// away from the disk, i.e. the I/O workload runs on the wrong node.
import type { DoctorInput, IrqInfo } from '../../model/doctor_input.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import type { Device } from '../../model/topology.js';
import { change, ev, isMultiNode, nodeOfCpu, notChecked, pass, pct, problem, singleNode } from './make.js';
import { deviceIrqs, deviceNodeCpus, irqDevices, servingCpus } from './irq_common.js';
import type { Rule } from './rule.js';

const ID = 'irq-locality';

function nicFinding(input: DoctorInput, d: Device, irqs: IrqInfo[]): Finding | null {
  const local = new Set(deviceNodeCpus(input, d));
  const remote = irqs.filter((i) => !servingCpus(i).some((c) => local.has(c)));
  if (remote.length === 0) return null;
  const cpus = formatCpuList([...local]);
  return problem(ID, {
    id: `${ID}/${d.name}`,
    severity: 'warning',
    evidence: [
      ev(
        `sys/class/${d.kind === 'ib' ? 'infiniband' : d.kind === 'gpu' ? 'bus/pci/devices' : 'net'}/${d.name}/device/numa_node`,
        d.node!,
      ),
      ...remote
        .slice(0, 6)
        .map((i) =>
          ev(
            `proc/irq/${i.irq}/${i.effective ? 'effective_affinity_list' : 'smp_affinity_list'}`,
            formatCpuList(servingCpus(i)),
          ),
        ),
    ],
    title: `${remote.length} of ${irqs.length} IRQs of ${d.kind} ${d.name} (node ${d.node}) are served only by CPUs of other nodes`,
    why: 'each interrupt and its softirq work run on a remote node: packets and descriptors cross the interconnect, and the local CPUs miss them in cache',
    runtime: remote.map((i) => `echo ${cpus} > /proc/irq/${i.irq}/smp_affinity_list`),
    persistent: [],
    manual: [
      'MSI IRQ numbers change between boots: numakit apply --persist DIR writes a boot-time unit for these affinities; under a pinning profile stop irqbalance or ban these IRQs (see irqbalance)',
    ],
    changes: remote.map((i) => change.irq(i.irq, cpus, d.name, `${d.name} IRQs on its node ${d.node}`)),
  });
}

function nvmeFinding(input: DoctorInput, d: Device, irqs: IrqInfo[]): Finding | null {
  const where = nodeOfCpu(input.topology);
  let total = 0;
  let remote = 0;
  // for...in, not Object.entries: a [key, count] array for each CPU column of each queue IRQ
  // (18 IRQs x 64 CPUs on spark-2s) was most of doctor's rule time, about 2 ms.
  for (const i of irqs) {
    for (const key in i.counts) {
      const cpu = Number(key);
      const n = i.counts[cpu]!;
      total += n;
      if (where.get(cpu) !== d.node) remote += n;
    }
  }
  if (total === 0 || remote / total <= 0.5) return null;
  return problem(ID, {
    id: `${ID}/${d.name}`,
    severity: 'info',
    evidence: [
      ev(`sys/class/nvme/${d.name}/device/numa_node`, d.node!),
      ev('proc/interrupts', `${pct(remote / total)} of ${total} ${d.name} interrupts on CPUs of other nodes`),
    ],
    title: `most I/O completions of ${d.name} (node ${d.node}) run on other nodes: the I/O is submitted from there`,
    why: 'NVMe queue IRQs are kernel-managed per CPU group; remote completions mean the workload using this disk runs on another node, so its data crosses the interconnect',
    runtime: [],
    persistent: [],
    manual: [
      `run the I/O workload on node ${d.node}: numakit run --cpunodebind=${d.node} --membind=${d.node} -- COMMAND, or systemd CPUAffinity=/NUMAPolicy= in its unit (numakit plan service); or give each node its own disk`,
    ],
  });
}

export const irqLocality: Rule = {
  id: ID,
  number: 10,
  title: 'NIC/NVMe IRQs served by CPUs of another node',
  check(input): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'IRQ locality')];
    if (!input.irqs.ok) return [notChecked(ID, ID, 'IRQ locality', input.irqs.reason)];
    const out: Finding[] = [];
    for (const d of irqDevices(input)) {
      const irqs = deviceIrqs(input, d);
      if (d.node === null || irqs.length === 0) continue;
      const f = d.kind === 'nvme' ? nvmeFinding(input, d, irqs) : nicFinding(input, d, irqs);
      out.push(f ?? pass(ID, `${ID}/${d.name}`, `${d.kind} ${d.name}: IRQs served on its node ${d.node}`));
    }
    return out.length > 0 ? out : [pass(ID, ID, 'no device IRQs with a known node')];
  },
};
