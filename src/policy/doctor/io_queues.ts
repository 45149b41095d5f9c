// Rule 11: I/O queue steering. NVMe queue/rq_affinity 2 completes each request on the CPU that
// submitted it (report 002); RPS/RFS spread a NIC's receive work over the CPUs of its node when
// it has fewer hardware queues than CPUs there (report 001: rps_cpus = node mask,
// rps_sock_flow_entries 32768, rps_flow_cnt = entries / queues).
import type { DoctorInput } from '../../model/doctor_input.js';
import { formatCpuMask } from '../../model/cpuset.js';
import type { Change } from '../../model/change.js';
import type { Finding } from '../../model/finding.js';
import type { Device } from '../../model/topology.js';
import { absentReason, change, ev, evFact, notChecked, pass, problem } from './make.js';
import { deviceIrqs, deviceNodeCpus } from './irq_common.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'io-queues';
const BUSY_SPEED_MBPS = 10000;
const BUSY_INTERRUPTS = 1_000_000;
const FLOW_ENTRIES = 32768;

function rqAffinity(input: DoctorInput, profile: Profile): Finding[] {
  if (profile.rqAffinity === null) return [];
  return input.rqAffinity.map(({ disk, value }) => {
    if (value.value === null) return notChecked(ID, `${ID}/rq_affinity/${disk}`, `${disk} rq_affinity`, absentReason(value, 'no queue directory for this disk'));
    if (value.value === 2) return pass(ID, `${ID}/rq_affinity/${disk}`, `${disk} rq_affinity 2`, [evFact(value)]);
    return problem(ID, {
      id: `${ID}/rq_affinity/${disk}`, severity: 'warning', evidence: [evFact(value)],
      title: `${disk}: rq_affinity is ${value.value}; the ${profile.name} profile wants 2 (complete on the submitting CPU)`,
      why: 'with 0 or 1 a completion may run on another CPU (or node) than the one that submitted it, so the caller\'s data is cold there',
      runtime: [`echo 2 > /${value.path}`],
      persistent: [`echo 'ACTION=="add|change", KERNEL=="nvme*n*", ATTR{queue/rq_affinity}="2"' > /etc/udev/rules.d/60-numakit-rq-affinity.rules`],
      changes: [change.sysfs(value.path, 2, `${disk} completions on the submitting CPU`)],
    });
  });
}

function busy(input: DoctorInput, d: Device): boolean {
  const speed = d.details.speedMbps;
  if (typeof speed === 'number' && speed >= BUSY_SPEED_MBPS) return true;
  return deviceIrqs(input, d).reduce((s, i) => s + i.total, 0) >= BUSY_INTERRUPTS;
}

function rps(input: DoctorInput, d: Device): Finding | null {
  const queues = input.rxQueues[d.name] ?? [];
  const cpus = deviceNodeCpus(input, d);
  // A queue per core or so needs no RPS; fewer than half the node's CPUs leaves receive work on a few.
  if (queues.length === 0 || cpus.length === 0 || queues.length * 2 > cpus.length || !busy(input, d)) return null;
  if (queues.some((q) => q.rpsCpus.length > 0)) return null;
  const mask = formatCpuMask(cpus);
  const perQueue = Math.floor(FLOW_ENTRIES / queues.length);
  const base = `sys/class/net/${d.name}/queues`;
  const changes: Change[] = [
    ...queues.flatMap((q) => [change.sysfs(`${base}/${q.queue}/rps_cpus`, mask, `RPS for ${d.name} on node ${d.node}`), change.sysfs(`${base}/${q.queue}/rps_flow_cnt`, perQueue, `RFS for ${d.name}`)]),
    change.sysctl('net.core.rps_sock_flow_entries', FLOW_ENTRIES, 'RFS flow table'),
  ];
  return problem(ID, {
    id: `${ID}/rps/${d.name}`, severity: 'warning', changes,
    evidence: [ev(`${base}/rx-*/rps_cpus`, `0 on all ${queues.length} queues`), ev(`sys/class/net/${d.name}/speed`, d.details.speedMbps ?? 'unknown'), evFact(input.rpsSockFlowEntries)],
    title: `${d.name} (node ${d.node}): ${queues.length} receive queue(s) for ${cpus.length} CPUs on its node, and RPS/RFS off`,
    why: 'receive processing of a busy NIC stays on the few CPUs its queue IRQs hit; RPS spreads it over the node, RFS steers each flow to its consumer\'s CPU',
    runtime: [`for q in /${base}/rx-*; do echo ${mask} > $q/rps_cpus; echo ${perQueue} > $q/rps_flow_cnt; done`, `sysctl -w net.core.rps_sock_flow_entries=${FLOW_ENTRIES}`],
    persistent: [`echo 'net.core.rps_sock_flow_entries = ${FLOW_ENTRIES}' >> /etc/sysctl.d/90-numakit.conf`, `a udev rule or boot-time unit writing rps_cpus=${mask} and rps_flow_cnt=${perQueue} for each rx queue of ${d.name}`],
  });
}

export const ioQueues: Rule = {
  id: ID, number: 11, title: 'NVMe rq_affinity not 2; RPS/RFS off on busy NICs with few queues',
  check(input, profile): Finding[] {
    const out = rqAffinity(input, profile);
    if (profile.wantsRps) {
      for (const d of input.topology.devices.filter((x) => x.kind === 'net')) {
        out.push(rps(input, d) ?? pass(ID, `${ID}/rps/${d.name}`, `${d.name}: RPS set, enough queues, or not busy`));
      }
    }
    return out.length > 0 ? out : [pass(ID, ID, `no queue settings wanted by the ${profile.name} profile, or no NVMe/NIC`)];
  },
};
