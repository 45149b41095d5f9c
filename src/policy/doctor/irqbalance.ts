// Rule 9: irqbalance against hand-set IRQ affinity. Running, it rewrites smp_affinity of every
// IRQ it was not told to leave alone (--banirq), undoing a per-node binding made by hand
// (report 000). Not running and nothing set: every device IRQ keeps the default affinity and is
// delivered to the first CPU of the set, usually on node 0, whatever node the device is on.
import type { DoctorInput, IrqInfo } from '../../model/doctor_input.js';
import type { Change } from '../../model/change.js';
import type { Finding } from '../../model/finding.js';
import { formatCpuList } from '../../model/cpuset.js';
import { change, ev, isMultiNode, notChecked, onlineCpus, pass, problem, singleNode } from './make.js';
import { deviceIrqs, deviceNodeCpus, irqDevices, looksHandSet } from './irq_common.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'irqbalance';

function running(input: DoctorInput, f: Finding[]): boolean {
  const pids = input.comms.ok ? input.comms.value['irqbalance'] : undefined;
  f.push(pass(ID, `${ID}/daemon`, pids ? `irqbalance running (pid ${pids.join(',')})` : 'irqbalance not running', [ev('proc/*/comm', pids ? `irqbalance: ${pids.join(',')}` : 'no irqbalance')]));
  return pids !== undefined;
}

function whileRunning(input: DoctorInput, irqs: IrqInfo[], profile: Profile): Finding | null {
  const banned = new Set(input.irqbalanceConfig?.bannedIrqs ?? []);
  const free = irqs.filter((i) => !banned.has(i.irq));
  const hand = free.filter((i) => looksHandSet(input, i) !== null);
  if (free.length === 0 || (hand.length === 0 && profile.numaBalancing !== 'off')) return null;
  const cfg = input.irqbalanceConfig?.path ?? 'etc/default/irqbalance (Debian) or etc/sysconfig/irqbalance (RHEL)';
  return problem(ID, {
    id: `${ID}/undoes-pinning`, severity: 'warning',
    evidence: [ev('proc/*/comm', 'irqbalance running'), ...hand.slice(0, 4).map((i) => ev(`proc/irq/${i.irq}/smp_affinity_list`, formatCpuList(i.affinity))), ev(cfg, `banned IRQs: ${[...banned].join(',') || 'none'}`)],
    title: hand.length > 0
      ? `irqbalance is running and will undo ${hand.length} IRQ affinities that look set by hand (one node's CPUs each)`
      : `irqbalance is running; the ${profile.name} profile pins IRQs to their device's node and irqbalance would move them`,
    why: 'irqbalance rewrites smp_affinity every 10 s for IRQs it was not told to leave alone: a per-node IRQ binding silently disappears',
    runtime: ['systemctl stop irqbalance'],
    persistent: ['systemctl disable irqbalance', `or keep it and exclude the device IRQs: IRQBALANCE_ARGS="${free.slice(0, 4).map((i) => `--banirq=${i.irq}`).join(' ')} ..." in /${cfg.split(' ')[0]}`],
    changes: [change.service('irqbalance', 'stopped', 'irqbalance undoes per-node IRQ affinity')],
  });
}

function nothingSet(input: DoctorInput, irqs: IrqInfo[]): Finding | null {
  const all = onlineCpus(input.topology).length;
  const untouched = irqs.filter((i) => i.affinity.length === all);
  if (untouched.length < irqs.length || irqs.length === 0) return null;
  const changes: Change[] = irqDevices(input).flatMap((d) => {
    const cpus = deviceNodeCpus(input, d);
    return cpus.length === 0 ? [] : deviceIrqs(input, d).map((i) => change.irq(i.irq, formatCpuList(cpus), d.name, `${d.name} IRQs on its node ${d.node}`));
  });
  return problem(ID, {
    id: `${ID}/nothing-set`, severity: 'warning', changes,
    evidence: [ev('proc/*/comm', 'no irqbalance'), ...irqs.slice(0, 4).map((i) => ev(`proc/irq/${i.irq}/smp_affinity_list`, formatCpuList(i.affinity)))],
    title: `irqbalance is not running and no device IRQ has an affinity set: all ${irqs.length} go wherever the default sends them`,
    why: 'with the default affinity, interrupts are delivered to the first CPU of the set, usually on node 0, whatever node the device sits on',
    runtime: ['either: systemctl enable --now irqbalance', "or pin each device's IRQs to its node: echo <node CPUs> > /proc/irq/N/smp_affinity_list (numakit apply --from-doctor does this)"],
    persistent: ['systemctl enable irqbalance, or a boot-time unit that writes the per-node affinities'],
  });
}

export const irqbalance: Rule = {
  id: ID, number: 9, title: 'irqbalance undoing hand-set IRQ affinity, or neither irqbalance nor affinity',
  check(input, profile): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'IRQ balancing')];
    if (!input.comms.ok) return [notChecked(ID, ID, 'irqbalance', input.comms.reason)];
    if (!input.irqs.ok) return [notChecked(ID, ID, 'irqbalance against IRQ affinity', input.irqs.reason)];
    const irqs = irqDevices(input).flatMap((d) => deviceIrqs(input, d));
    const out: Finding[] = [];
    const on = running(input, out);
    const p = on ? whileRunning(input, irqs, profile) : nothingSet(input, irqs);
    return p === null ? out : [p];
  },
};
