// Rule 10: device IRQs that may be served by CPUs of another node than the device's. For NICs (and
// other devices with writable affinity) the rule of knowledge/irq_placement.ts, the one apply acts
// on: the affinity mask must stay on the device's node; where each IRQ is served now is shown
// beside it (a warning when served off the node, info when only the mask is wider). NVMe queue IRQs are "managed":
// the kernel spreads one per CPU group and refuses changes, so a remote queue IRQ only serves
// I/O submitted from that remote node; there the counts tell whether most completions happen
// away from the disk, i.e. the I/O workload runs on the wrong node.
import type { DoctorInput, IrqInfo } from '../../model/doctor_input.js';
import { formatCpuList } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import type { Device } from '../../model/topology.js';
import { change, ev, isMultiNode, nodeOfCpu, notChecked, pass, pct, problem, singleNode } from './make.js';
import { deviceNodeCpus, judgeIrq, type IrqJudgement } from '../knowledge/irq_placement.js';
import { deviceIrqs, irqDevices } from './irq_common.js';
import type { Rule } from './rule.js';

const ID = 'irq-locality';

/** The evidence of one IRQ: its mask, and where it is served now when the kernel says. */
function irqEvidence(j: IrqJudgement) {
  const served =
    j.servedFrom === 'effective_affinity_list'
      ? ` (served on ${formatCpuList(j.served)}: effective_affinity_list)`
      : '';
  return ev(`proc/irq/${j.irq}/smp_affinity_list`, `${formatCpuList(j.mask)}${served}`);
}

function nicFinding(input: DoctorInput, d: Device, irqs: IrqInfo[]): Finding | null {
  const local = deviceNodeCpus(input.topology, d);
  const judged = irqs.map((i) => judgeIrq(i, local));
  const off = judged.filter((j) => !j.placed);
  if (off.length === 0) return null;
  const remote = off.filter((j) => !j.servedOnNode);
  const cpus = formatCpuList(local);
  const what = `${d.kind} ${d.name} (node ${d.node})`;
  return problem(ID, {
    id: `${ID}/${d.name}`,
    severity: remote.length > 0 ? 'warning' : 'info',
    evidence: [
      ev(
        `sys/class/${d.kind === 'ib' ? 'infiniband' : d.kind === 'gpu' ? 'bus/pci/devices' : 'net'}/${d.name}/device/numa_node`,
        d.node!,
      ),
      ...off.slice(0, 6).map(irqEvidence),
    ],
    title:
      remote.length > 0
        ? `${remote.length} of ${irqs.length} IRQs of ${what} are served only by CPUs of other nodes`
        : `${off.length} of ${irqs.length} IRQs of ${what} may be sent to other nodes: their affinity is not confined to node ${d.node} (served on it now)`,
    why:
      remote.length > 0
        ? 'each interrupt and its softirq work run on a remote node: packets and descriptors cross the interconnect, and the local CPUs miss them in cache'
        : 'an affinity wider than the node lets the kernel or irqbalance move the interrupt (and its softirq work) to another node at the next pass, CPU hotplug or reboot',
    runtime: off.map((j) => `echo ${cpus} > /proc/irq/${j.irq}/smp_affinity_list`),
    persistent: [],
    manual: [
      'MSI IRQ numbers change between boots: numakit apply --persist DIR writes a boot-time unit for these affinities; under a pinning profile stop irqbalance or ban these IRQs (see irqbalance)',
    ],
    changes: off.map((j) => change.irq(j.irq, cpus, d.name, `${d.name} IRQs on its node ${d.node}`)),
  });
}

function nvmeFinding(input: DoctorInput, d: Device, irqs: IrqInfo[]): Finding | null {
  const where = nodeOfCpu(input.topology);
  let total = 0;
  let remote = 0;
  for (const i of irqs) {
    for (const [cpu, n] of i.counts) {
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
  title: 'NIC/NVMe IRQs that may be served by CPUs of another node',
  check(input): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'IRQ locality')];
    if (!input.irqs.ok) return [notChecked(ID, ID, 'IRQ locality', input.irqs.reason)];
    const out: Finding[] = [];
    for (const d of irqDevices(input)) {
      const irqs = deviceIrqs(input, d);
      if (d.node === null || irqs.length === 0) continue;
      const f = d.kind === 'nvme' ? nvmeFinding(input, d, irqs) : nicFinding(input, d, irqs);
      const ok = d.kind === 'nvme' ? 'IRQs served on its node' : 'IRQ affinity on its node';
      out.push(f ?? pass(ID, `${ID}/${d.name}`, `${d.kind} ${d.name}: ${ok} ${d.node}`));
    }
    return out.length > 0 ? out : [pass(ID, ID, 'no device IRQs with a known node')];
  },
};
