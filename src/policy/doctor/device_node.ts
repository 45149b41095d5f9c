// Rule 12: devices whose numa_node is -1 on a multi-node machine: the firmware (ACPI _PXM of
// the PCI root bridge) does not say where they are, so the kernel and every tool place their
// buffers and IRQs without knowing, and numactl netdev:/block: forms cannot resolve them.
import type { Finding } from '../../model/finding.js';
import { ev, isMultiNode, pass, problem, singleNode } from './make.js';
import type { Rule } from './rule.js';

const ID = 'device-node';

export const deviceNode: Rule = {
  id: ID,
  number: 12,
  title: 'devices with numa_node -1 on a multi-node machine',
  check(input): Finding[] {
    const t = input.topology;
    if (!isMultiNode(t)) return [singleNode(ID, 'device nodes')];
    const unknown = t.devices.filter((d) => d.node === null && d.pciAddress !== null);
    if (unknown.length === 0) return [pass(ID, ID, `all ${t.devices.length} devices have a node`)];
    return [
      problem(ID, {
        id: ID,
        severity: 'warning',
        evidence: unknown.map((d) => ev(`sys/bus/pci/devices/${d.pciAddress}/numa_node`, `-1 (${d.kind} ${d.name})`)),
        title: `${unknown.length} device(s) on an unknown node (firmware gives no numa_node): ${unknown.map((d) => `${d.kind} ${d.name}`).join(', ')}`,
        why: 'the kernel allocates their buffers and the tools bind their IRQs without knowing the socket: half the time remote',
        runtime: [],
        persistent: [],
        manual: [
          "find the slot's socket (lspci -vv -s ADDR, the board manual), then pin its users: numakit run --cpunodebind=N --membind=N -- COMMAND",
          ...unknown.map(
            (d) =>
              `override (taints the kernel as a firmware workaround): echo N > /sys/bus/pci/devices/${d.pciAddress}/numa_node`,
          ),
          'update the BIOS/firmware (ACPI _PXM/SRAT for PCI root bridges); on a KVM guest attach the device under a pxb-pcie bridge with numa_node=N',
        ],
      }),
    ];
  },
};
