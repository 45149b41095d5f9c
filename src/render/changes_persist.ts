// The persistent form of a plan (`apply --persist DIR`), laid out as under /etc:
//   sysctl.d/90-numakit.conf                      sysctls (read by systemd-sysctl at boot)
//   tuned/numakit-NAME/tuned.conf                 THP ([vm]) and other sysfs knobs ([sysfs])
//   systemd/system/numakit-irq-affinity.service   IRQ masks, re-applied at boot
//   systemd/system/irqbalance.service.d/90-numakit.conf   irqbalance keeps off the pinned IRQs
//   numakit/boot.txt                              what needs a person: GRUB arguments, units to disable
// Pure: the caller writes the files.
import type { Change, PlannedChange } from '../model/change.js';

export interface PersistFileText {
  /** Path relative to DIR. */
  readonly path: string;
  readonly text: string;
}

export interface PersistOptions {
  /** Names the tuned profile: numakit-NAME. */
  readonly name: string;
  /** Stock tuned profile to include (throughput-performance ...), if any. */
  readonly tunedBase?: string;
}

const HEADER = '# Written by numakit apply --persist; numakit rollback removes it.';
const THP_ENABLED = 'sys/kernel/mm/transparent_hugepage/enabled';

function sysctlConf(items: readonly PlannedChange[]): PersistFileText | null {
  const lines = items
    .filter((p) => p.change.kind === 'sysctl' && p.path?.startsWith('proc/sys/'))
    .flatMap((p) => [`# ${p.change.reason}`, `${p.change.target} = ${p.change.value}`]);
  return lines.length === 0 ? null : { path: 'sysctl.d/90-numakit.conf', text: [HEADER, ...lines, ''].join('\n') };
}

function tunedConf(items: readonly PlannedChange[], opts: PersistOptions): PersistFileText | null {
  const thp = items.find((p) => p.path === THP_ENABLED);
  // Knobs that are files outside /proc/sys: sysfs, and the scan sysctls that moved to debugfs.
  const sysfs = items.filter(
    (p) =>
      p.change.kind !== 'service' &&
      p.change.kind !== 'irq-affinity' &&
      p.path !== THP_ENABLED &&
      p.path?.startsWith('sys/'),
  );
  if (thp === undefined && sysfs.length === 0) return null;
  const out = [HEADER, '[main]', `summary=numakit ${opts.name}`];
  if (opts.tunedBase !== undefined) out.push(`include=${opts.tunedBase}`);
  if (thp !== undefined) out.push('', '[vm]', `transparent_hugepages=${thp.change.value}`);
  if (sysfs.length > 0) out.push('', '[sysfs]', ...sysfs.map((p) => `/${p.path}=${p.change.value}`));
  return { path: `tuned/numakit-${opts.name}/tuned.conf`, text: [...out, ''].join('\n') };
}

function irqUnit(irqs: readonly Change[]): PersistFileText | null {
  if (irqs.length === 0) return null;
  const lines = [
    HEADER,
    '# MSI IRQ numbers can change when drivers load in another order: check after a reboot',
    '# (numakit apply shows "already set" when they still match).',
    '[Unit]',
    'Description=numakit: pin device IRQs to the CPUs of their NUMA node',
    'After=irqbalance.service',
    '',
    '[Service]',
    'Type=oneshot',
    ...irqs.map((c) => `ExecStart=/bin/sh -c 'echo ${c.value} > /proc/irq/${c.target}/smp_affinity_list'`),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ];
  return { path: 'systemd/system/numakit-irq-affinity.service', text: lines.join('\n') };
}

function irqbalanceDropIn(irqs: readonly Change[]): PersistFileText {
  const args = irqs.map((c) => `--banirq=${c.target}`).join(' ');
  // RHEL's unit passes $IRQBALANCE_ARGS, Debian's $OPTIONS; an EnvironmentFile setting the same variable wins.
  const text = [HEADER, '[Service]', `Environment="IRQBALANCE_ARGS=${args}" "OPTIONS=${args}"`, ''].join('\n');
  return { path: 'systemd/system/irqbalance.service.d/90-numakit.conf', text };
}

/** Kernel command-line arguments matching the plan's sysctls and THP setting. */
export function grubArguments(changes: readonly Change[]): string[] {
  const args: string[] = [];
  for (const c of changes) {
    if (c.kind === 'sysctl' && c.target === 'kernel.numa_balancing')
      args.push(`numa_balancing=${c.value === '0' ? 'disable' : 'enable'}`);
    if (c.kind === 'sysfs' && c.target === THP_ENABLED) args.push(`transparent_hugepage=${c.value}`);
  }
  return args;
}

function bootText(changes: readonly Change[], opts: PersistOptions): PersistFileText | null {
  const grub = grubArguments(changes);
  const units = changes.filter((c) => c.kind === 'service' && c.target !== 'irqbalance');
  const out = [HEADER, ''];
  if (grub.length > 0) {
    out.push(
      'Add to GRUB_CMDLINE_LINUX in /etc/default/grub, then regenerate the GRUB configuration',
      '(update-grub, or grub2-mkconfig -o /boot/grub2/grub.cfg):',
      `  ${grub.join(' ')}`,
      '',
    );
  }
  if (units.length > 0)
    out.push(
      'Units this profile stops; disable them so they stay stopped after a reboot:',
      ...units.map((c) => `  systemctl ${c.value === 'stopped' ? 'disable' : 'enable'} ${c.target}`),
      '',
    );
  if (opts.tunedBase !== undefined || grub.length > 0)
    out.push(`Activate the tuned profile: tuned-adm profile numakit-${opts.name}`, '');
  return out.length === 2 ? null : { path: 'numakit/boot.txt', text: out.join('\n') };
}

export function renderPersistFiles(plan: readonly PlannedChange[], opts: PersistOptions): PersistFileText[] {
  const items = plan.filter((p) => p.action !== 'absent');
  const changes = items.map((p) => p.change);
  const irqs = changes.filter((c) => c.kind === 'irq-affinity');
  const stopsIrqbalance = changes.some(
    (c) => c.kind === 'service' && c.target === 'irqbalance' && c.value === 'stopped',
  );
  return [
    sysctlConf(items),
    tunedConf(items, opts),
    irqUnit(irqs),
    stopsIrqbalance ? irqbalanceDropIn(irqs) : null,
    bootText(changes, opts),
  ].filter((f): f is PersistFileText => f !== null);
}
