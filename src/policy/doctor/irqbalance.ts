// Rule 9: irqbalance against the profile's IRQ placement (policy/knowledge). Pinned profiles
// (spark, latency) keep each NIC's IRQs on its node by hand, and irqbalance rewrites the
// affinity of every IRQ it was not told to leave alone (--banirq), undoing that (report 000).
// Local profiles let irqbalance run: it places IRQs on their device's node. Not running and
// nothing set: every device IRQ keeps the default affinity and is delivered to the first CPU
// of the set, usually on node 0, whatever node the device is on.
import type { DoctorInput, IrqInfo } from '../../model/doctor_input.js';
import type { Finding } from '../../model/finding.js';
import { formatCpuList } from '../../model/cpuset.js';
import { wanted } from '../knowledge/resolve.js';
import { irqChanges } from '../tuning/irq.js';
import { commandsFor, ev, isMultiNode, notChecked, onlineCpus, pass, problem, singleNode } from './make.js';
import { deviceIrqs, irqDevices, looksHandSet } from './irq_common.js';
import type { Profile } from './profiles.js';
import type { Rule } from './rule.js';

const ID = 'irqbalance';

function running(input: DoctorInput, f: Finding[]): boolean {
  const pids = input.comms.ok ? input.comms.value['irqbalance'] : undefined;
  f.push(
    pass(ID, `${ID}/daemon`, pids ? `irqbalance running (pid ${pids.join(',')})` : 'irqbalance not running', [
      ev('proc/*/comm', pids ? `irqbalance: ${pids.join(',')}` : 'no irqbalance'),
    ]),
  );
  return pids !== undefined;
}

function whilePinned(input: DoctorInput, irqs: IrqInfo[], profile: Profile): Finding | null {
  const banned = new Set(input.irqbalanceConfig?.bannedIrqs ?? []);
  const free = irqs.filter((i) => !banned.has(i.irq));
  if (free.length === 0) return null;
  const hand = free.filter((i) => looksHandSet(input, i) !== null);
  const cfg = input.irqbalanceConfig?.path ?? 'etc/default/irqbalance (Debian) or etc/sysconfig/irqbalance (RHEL)';
  const changes = [
    {
      kind: 'service' as const,
      target: 'irqbalance',
      value: 'stopped' as const,
      reason: 'irqbalance undoes per-node IRQ affinity',
    },
  ];
  return problem(ID, {
    id: `${ID}/undoes-pinning`,
    severity: 'warning',
    changes,
    ...commandsFor(changes),
    evidence: [
      ev('proc/*/comm', 'irqbalance running'),
      ...hand.slice(0, 4).map((i) => ev(`proc/irq/${i.irq}/smp_affinity_list`, formatCpuList(i.affinity))),
      ev(cfg, `banned IRQs: ${[...banned].join(',') || 'none'}`),
    ],
    title: `irqbalance is running; the ${profile.name} profile pins IRQs to their device's node${hand.length > 0 ? ` (${hand.length} look set by hand already)` : ''} and irqbalance would move them`,
    why: 'irqbalance rewrites smp_affinity every 10 s for IRQs it was not told to leave alone: a per-node IRQ binding silently disappears',
    manual: [
      `or keep it and exclude the device IRQs: IRQBALANCE_ARGS="${free
        .slice(0, 4)
        .map((i) => `--banirq=${i.irq}`)
        .join(' ')} ..." in /${cfg.split(' ')[0]}`,
    ],
  });
}

function nothingSet(input: DoctorInput, irqs: IrqInfo[], profile: Profile): Finding | null {
  const all = onlineCpus(input.topology).length;
  const untouched = irqs.filter((i) => i.affinity.length === all);
  if (untouched.length < irqs.length || irqs.length === 0) return null;
  const want = wanted(profile, 'irq');
  const changes = want === null ? [] : irqChanges(want, input.topology, {});
  return problem(ID, {
    id: `${ID}/nothing-set`,
    severity: 'warning',
    changes,
    ...commandsFor(changes),
    evidence: [
      ev('proc/*/comm', 'no irqbalance'),
      ...irqs.slice(0, 4).map((i) => ev(`proc/irq/${i.irq}/smp_affinity_list`, formatCpuList(i.affinity))),
    ],
    title: `irqbalance is not running and no device IRQ has an affinity set: all ${irqs.length} go wherever the default sends them`,
    why: 'with the default affinity, interrupts are delivered to the first CPU of the set, usually on node 0, whatever node the device sits on',
    manual: [
      `${changes.length > 0 ? "the commands pin each NIC's IRQs to its node; " : ''}or run irqbalance (NUMA-aware): systemctl enable --now irqbalance${want?.value === 'pinned' ? ' (not for the pinned profiles)' : ''}`,
      'MSI IRQ numbers change between boots: numakit apply --persist DIR writes a boot-time unit for the pins',
    ],
  });
}

export const irqbalance: Rule = {
  id: ID,
  number: 9,
  title: 'irqbalance against a pinning profile, or neither irqbalance nor IRQ affinity',
  check(input, profile): Finding[] {
    if (!isMultiNode(input.topology)) return [singleNode(ID, 'IRQ balancing')];
    if (!input.comms.ok) return [notChecked(ID, ID, 'irqbalance', input.comms.reason)];
    if (!input.irqs.ok) return [notChecked(ID, ID, 'irqbalance against IRQ affinity', input.irqs.reason)];
    const irqs = irqDevices(input).flatMap((d) => deviceIrqs(input, d));
    const out: Finding[] = [];
    const on = running(input, out);
    const p = on
      ? wanted(profile, 'irq')?.value === 'pinned'
        ? whilePinned(input, irqs, profile)
        : null
      : nothingSet(input, irqs, profile);
    return p === null ? out : [p];
  },
};
