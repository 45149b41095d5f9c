// Rule 11: I/O queue steering against the profile (policy/knowledge). NVMe queue/rq_affinity 2
// completes each request on the CPU that submitted it (report 002); RPS/RFS spread a busy NIC's
// receive work over the CPUs of its node when it has fewer hardware queues than half of them
// (report 001). Which NICs, and the changes, are apply's (policy/tuning/io.ts).
import type { DoctorInput } from '../../model/doctor_input.js';
import { formatCpuMask } from '../../model/cpuset.js';
import type { Finding } from '../../model/finding.js';
import type { Device } from '../../model/topology.js';
import { wanted } from '../knowledge/resolve.js';
import type { Advice } from '../knowledge/types.js';
import { FLOW_ENTRIES, flowsPerQueue, rpsChanges, rpsNics, rqAffinityChanges } from '../tuning/io.js';
import { deviceNodeCpus } from '../knowledge/irq_placement.js';
import { absentReason, commandsFor, ev, evFact, notChecked, pass, problem } from './make.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'io-queues';

function rqAffinity(input: DoctorInput, profile: Profile, a: Advice<2>): Finding[] {
  const changes = rqAffinityChanges(a, input.topology);
  return input.rqAffinity.map(({ disk, value }) => {
    if (value.value === null)
      return notChecked(
        ID,
        `${ID}/rq_affinity/${disk}`,
        `${disk} rq_affinity`,
        absentReason(value, 'no queue directory for this disk'),
      );
    if (value.value === a.value)
      return pass(ID, `${ID}/rq_affinity/${disk}`, `${disk} rq_affinity ${a.value}`, [evFact(value)]);
    const mine = changes.filter((c) => c.target === value.path);
    return problem(ID, {
      id: `${ID}/rq_affinity/${disk}`,
      severity: 'warning',
      evidence: [evFact(value)],
      changes: mine,
      title: `${disk}: rq_affinity is ${value.value}; the ${profile.name} profile wants ${a.value} (complete on the submitting CPU)`,
      why: a.reason,
      runtime: commandsFor(mine).runtime,
      persistent: [
        `echo 'ACTION=="add|change", KERNEL=="nvme*n*", ATTR{queue/rq_affinity}="${a.value}"' > /etc/udev/rules.d/60-numakit-rq-affinity.rules`,
      ],
    });
  });
}

function totals(input: DoctorInput): Record<number, number> {
  return input.irqs.ok ? Object.fromEntries(Object.values(input.irqs.value).map((i) => [i.irq, i.total])) : {};
}

function rps(input: DoctorInput, d: Device, a: Advice<'busy-nics'>): Finding {
  const cpus = new Set(deviceNodeCpus(input.topology, d));
  const queues = input.rxQueues[d.name] ?? [];
  const unset = queues.filter((q) => q.rpsCpus.length === 0 || !q.rpsCpus.every((c) => cpus.has(c)));
  if (unset.length === 0) return pass(ID, `${ID}/rps/${d.name}`, `${d.name}: RPS on the CPUs of its node`);
  const mask = formatCpuMask([...cpus]);
  const rx = d.queues?.rx ?? queues.length;
  const base = `/sys/class/net/${d.name}/queues`;
  const flows = input.rpsSockFlowEntries.value !== null;
  return problem(ID, {
    id: `${ID}/rps/${d.name}`,
    severity: 'warning',
    changes: rpsChanges(a, input.topology, [d]),
    evidence: [
      ev(
        `${base.slice(1)}/rx-*/rps_cpus`,
        `not on node ${d.node}'s CPUs on ${unset.length} of ${queues.length} queues`,
      ),
      ev(`sys/class/net/${d.name}/speed`, d.details.speedMbps ?? 'unknown'),
      evFact(input.rpsSockFlowEntries),
    ],
    title: `${d.name} (node ${d.node}): ${rx} receive queue(s) for ${cpus.size} CPUs on its node, and RPS/RFS off`,
    why: a.reason,
    // The global flow table is a sysctl only where the kernel has it (absent: said by hand, not a command that fails).
    runtime: [
      ...(flows ? [`sysctl -w net.core.rps_sock_flow_entries=${FLOW_ENTRIES}`] : []),
      `for q in ${base}/rx-*; do echo ${mask} > "$q/rps_cpus"; echo ${flowsPerQueue(rx)} > "$q/rps_flow_cnt"; done`,
    ],
    persistent: [
      ...(flows
        ? [
            `echo 'net.core.rps_sock_flow_entries = ${FLOW_ENTRIES}' > /etc/sysctl.d/90-numakit-net.core.rps_sock_flow_entries.conf`,
          ]
        : []),
      `printf 'w ${base}/rx-*/rps_cpus - - - - ${mask}\\nw ${base}/rx-*/rps_flow_cnt - - - - ${flowsPerQueue(rx)}\\n' > /etc/tmpfiles.d/numakit-rps-${d.name}.conf`,
    ],
    manual: [
      `systemd-tmpfiles applies the RPS lines at boot; if the ${d.name} driver loads later, run systemd-tmpfiles --create /etc/tmpfiles.d/numakit-rps-${d.name}.conf after it`,
      ...(flows
        ? []
        : [
            `${input.rpsSockFlowEntries.path} was not read here: set net.core.rps_sock_flow_entries = ${FLOW_ENTRIES} for RFS where the kernel has it`,
          ]),
    ],
  });
}

export const ioQueues: Rule = {
  id: ID,
  number: 11,
  title: 'NVMe rq_affinity and RPS/RFS on busy NICs with few queues, against the profile',
  check(input, profile): Finding[] {
    const rq = wanted(profile, 'rqAffinity');
    const out = rq === null ? [] : rqAffinity(input, profile, rq);
    const r = wanted(profile, 'rps');
    if (r !== null) {
      const wanting = new Set(rpsNics(input.topology, totals(input)).map((d) => d.name));
      for (const d of input.topology.devices.filter((x) => x.kind === 'net')) {
        out.push(
          wanting.has(d.name)
            ? rps(input, d, r)
            : pass(ID, `${ID}/rps/${d.name}`, `${d.name}: enough queues, not busy, or no known node`),
        );
      }
    }
    return out.length > 0
      ? out
      : [pass(ID, ID, `no queue settings wanted by the ${profile.name} profile, or no NVMe/NIC`)];
  },
};
