// Rule 1: NUMA hidden. Several sockets but one node (BIOS "Node Interleaving" on, AMD NPS0,
// or numa=off), and numa=off / numa_balancing=disable on the kernel command line.
import type { DoctorInput } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { packageIds } from '../../model/topology.js';
import { wanted } from '../knowledge/resolve.js';
import { autonumaChanges } from '../tuning/autonuma.js';
import { absentReason, commandsFor, ev, evFact, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'numa-off';
const GRUB = 'then update-grub (Debian) or grub2-mkconfig -o /boot/grub2/grub.cfg (RHEL) and reboot';

function sockets(input: DoctorInput): Finding {
  const t = input.topology;
  if (t.kernel.hypervisor.value === true)
    return pass(ID, `${ID}/sockets`, 'a VM: its node layout comes from the host (see vm-vnuma)');
  const pkgs = packageIds(t);
  const evidence = [
    ev('sys/devices/system/cpu/cpu*/topology/physical_package_id', pkgs.join(',') || 'none'),
    ev('sys/devices/system/node/node*', t.nodes.map((n) => `node${n.id}`).join(',')),
  ];
  if (pkgs.length === 0)
    return notChecked(
      ID,
      `${ID}/sockets`,
      'sockets against nodes',
      'no CPU has topology/physical_package_id (container or trimmed tree)',
    );
  if (pkgs.length < 2 || t.nodes.length > 1)
    return pass(ID, `${ID}/sockets`, `${pkgs.length} socket(s), ${t.nodes.length} node(s)`, evidence);
  return problem(ID, {
    id: `${ID}/sockets`,
    severity: 'critical',
    evidence,
    title: `${pkgs.length} sockets but one NUMA node: the firmware interleaves memory across sockets`,
    why: "every access goes to all sockets' memory in turn; no tool (numactl, the scheduler, AutoNUMA) can keep memory local",
    runtime: [],
    persistent: [],
    manual: [
      'BIOS setup: set "Node Interleaving" to Disabled (Intel) or NPS to 1 or more and "ACPI SRAT L3 as NUMA" as wanted (AMD); reboot',
      'afterwards numakit topo must show one node per socket',
    ],
  });
}

function cmdlineFindings(input: DoctorInput, profile: Profile): Finding[] {
  const cmd = input.topology.kernel.cmdline;
  if (cmd.value === null)
    return [notChecked(ID, `${ID}/cmdline`, 'kernel command line', absentReason(cmd, 'no /proc in the tree'))];
  const args = cmd.value.split(/\s+/);
  const out: Finding[] = [];
  if (args.includes('numa=off')) {
    out.push(
      problem(ID, {
        id: `${ID}/cmdline`,
        severity: 'critical',
        evidence: [evFact(cmd)],
        title: 'numa=off on the kernel command line: the kernel ignores the NUMA topology',
        why: 'all memory is one node to the kernel: allocations, the scheduler and numactl cannot keep anything local',
        runtime: [],
        persistent: [],
        manual: [`remove numa=off from GRUB_CMDLINE_LINUX in /etc/default/grub, ${GRUB}`],
      }),
    );
  }
  const want = wanted(profile, 'autonuma');
  if (args.includes('numa_balancing=disable') && want !== null && want.value !== 'off') {
    const changes = autonumaChanges(want);
    out.push(
      problem(ID, {
        id: `${ID}/balancing-cmdline`,
        severity: 'warning',
        evidence: [evFact(cmd)],
        title: 'numa_balancing=disable on the kernel command line: AutoNUMA is off from boot',
        why: `the ${profile.name} profile wants AutoNUMA ${want.value}: ${want.reason}`,
        ...commandsFor(changes),
        persistent: [],
        changes,
        manual: [`replace numa_balancing=disable with numa_balancing=enable in /etc/default/grub, ${GRUB}`],
      }),
    );
  }
  if (out.length === 0) out.push(pass(ID, `${ID}/cmdline`, 'kernel command line does not hide NUMA', [evFact(cmd)]));
  return out;
}

export const numaOff: Rule = {
  id: ID,
  number: 1,
  title: 'NUMA hidden by firmware (node interleaving) or by numa=off / numa_balancing=disable',
  check: (input, profile) => [sockets(input), ...cmdlineFindings(input, profile)],
};
