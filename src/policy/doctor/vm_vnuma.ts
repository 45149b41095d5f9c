// Rule 2: a VM with many vCPUs (or much memory) and one node: the host did not expose vNUMA,
// so the guest cannot place anything while the host may spread it over several nodes.
import type { Finding } from '../../model/finding.js';
import { absentReason, ev, evFact, gib, notChecked, onlineCpus, pass, problem } from './make.js';
import type { Rule } from './rule.js';

const ID = 'vm-vnuma';
const MANY_VCPUS = 16;
const MUCH_MEMORY = 64 * 2 ** 30;

export const vmVnuma: Rule = {
  id: ID,
  number: 2,
  title: 'large VM without vNUMA',
  check(input): Finding[] {
    const t = input.topology;
    const hv = t.kernel.hypervisor;
    if (hv.value === null)
      return [notChecked(ID, ID, 'virtual machine without vNUMA', absentReason(hv, 'no /proc/cpuinfo in the tree'))];
    if (!hv.value) return [pass(ID, ID, 'not a virtual machine', [evFact(hv, () => 'no hypervisor flag')])];
    const cpus = onlineCpus(t).length;
    const mem = t.kernel.memTotalBytes.value ?? 0;
    const evidence = [
      evFact(hv, () => 'hypervisor flag set'),
      ev('sys/devices/system/cpu/online', `${cpus} vCPUs`),
      ev('proc/meminfo', `MemTotal ${gib(mem)}`),
      ev('sys/devices/system/node', `${t.nodes.length} node(s)`),
    ];
    if (t.nodes.length > 1) return [pass(ID, ID, `VM with ${t.nodes.length} vNUMA nodes`, evidence)];
    if (cpus < MANY_VCPUS && mem < MUCH_MEMORY)
      return [pass(ID, ID, `small VM (${cpus} vCPUs, ${gib(mem)}): fits one host node`, evidence)];
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence,
        title: `VM with ${cpus} vCPUs and ${gib(mem)} but one NUMA node: the host exposes no vNUMA`,
        why: 'the host may run these vCPUs and this memory on several of its nodes; the guest cannot see it, so nothing inside can keep memory local',
        runtime: [],
        persistent: [],
        manual: [
          "libvirt host: in <cpu>, one <numa><cell id='N' cpus='...' memory='...'/> per host node the VM spans; pin vCPUs with <vcputune><vcpupin> and memory with <numatune><memnode cellid='N' mode='strict' nodeset='N'/>",
          'QEMU host: -object memory-backend-ram,id=m0,size=SIZE,host-nodes=0,policy=bind -numa node,nodeid=0,cpus=0-15,memdev=m0 (one per node)',
          'cloud: choose an instance size that fits one host socket, or one that exposes vNUMA',
        ],
      }),
    ];
  },
};
