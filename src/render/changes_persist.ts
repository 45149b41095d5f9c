// The persistent form of a plan (`apply --persist DIR`), laid out as under /etc:
//   tuned/numakit-NAME/tuned.conf                 the plan's knobs with tuned's own plugins: [cpu] governor,
//                                                 [vm] THP, [sysctl], [sysfs] only for knobs no plugin sets
//                                                 (KSM, rq_affinity, rps_cpus, the debugfs scan knobs);
//                                                 include= the stock profile it builds on
//   numakit/irq-affinity.sh + its unit, irqbalance's policy script + drop-in: IRQs pinned by device
//                                                 identity at boot (irq_persist.ts)
//   numakit/boot.txt                              what needs a person: GRUB arguments, units to disable
// Pure: the caller writes the files.
import type { Change, PlannedChange } from '../model/change.js';
import { type PersistFileText, renderIrqPersist } from './irq_persist.js';

export type { PersistFileText };

export interface PersistOptions {
  /** Names the tuned profile: numakit-NAME. */
  readonly name: string;
  /** Stock tuned profile to include (throughput-performance ...), if any. */
  readonly tunedBase?: string;
}

const HEADER = '# Written by numakit apply --persist; numakit rollback removes it.';
const THP_ENABLED = 'sys/kernel/mm/transparent_hugepage/enabled';

const THP_DEFRAG = 'sys/kernel/mm/transparent_hugepage/defrag';
const GOVERNOR = /^sys\/devices\/system\/cpu\/cpu(\d+)\/cpufreq\/scaling_governor$/;

/** The tuned profile numakit writes for a plan named NAME. */
export function tunedProfileName(name: string): string {
  return `numakit-${name}`;
}

/** [cpu] governor= when every governor in the plan gets the same value (tuned's cpu plugin sets all CPUs). */
function governorValue(items: readonly PlannedChange[]): string | null {
  const values = new Set(items.filter((p) => GOVERNOR.test(p.path ?? '')).map((p) => p.change.value));
  return values.size === 1 ? [...values][0]! : null;
}

function tunedConf(items: readonly PlannedChange[], opts: PersistOptions): PersistFileText | null {
  const knobs = items.filter((p) => p.change.kind === 'sysctl' || p.change.kind === 'sysfs');
  if (knobs.length === 0 && opts.tunedBase === undefined) return null;
  const governor = governorValue(knobs);
  const byPlugin = (p: PlannedChange): 'cpu' | 'vm' | 'sysctl' | 'sysfs' | null => {
    if (governor !== null && GOVERNOR.test(p.path ?? '')) return 'cpu';
    if (p.path === THP_ENABLED || p.path === THP_DEFRAG) return 'vm';
    // Sysctls under /proc/sys; the scan knobs that moved to debugfs on >= 5.13 are files for [sysfs].
    if (p.change.kind === 'sysctl' && p.path?.startsWith('proc/sys/')) return 'sysctl';
    return p.path?.startsWith('sys/') ? 'sysfs' : null;
  };
  const option = (p: PlannedChange): string => {
    if (byPlugin(p) === 'vm')
      return `${p.path === THP_ENABLED ? 'transparent_hugepages' : 'transparent_hugepage.defrag'}=${p.change.value}`;
    return byPlugin(p) === 'sysctl' ? `${p.change.target}=${p.change.value}` : `/${p.path}=${p.change.value}`;
  };
  // One section a plugin, each option under the reason for it (said once for a run of the same reason).
  const section = (plugin: 'cpu' | 'vm' | 'sysctl' | 'sysfs'): string[] => {
    const these = knobs.filter((p) => byPlugin(p) === plugin);
    if (these.length === 0) return [];
    if (plugin === 'cpu') return ['', '[cpu]', `# ${these[0]!.change.reason}`, `governor=${governor}`];
    const lines = these.flatMap((p, i) =>
      i > 0 && these[i - 1]!.change.reason === p.change.reason ? [option(p)] : [`# ${p.change.reason}`, option(p)],
    );
    return ['', `[${plugin}]`, ...lines];
  };
  const out = [HEADER, '[main]', `summary=numakit ${opts.name}`];
  if (opts.tunedBase !== undefined) out.push(`include=${opts.tunedBase}`);
  out.push(...section('cpu'), ...section('vm'), ...section('sysctl'), ...section('sysfs'));
  return { path: `tuned/${tunedProfileName(opts.name)}/tuned.conf`, text: [...out, ''].join('\n') };
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

function bootText(changes: readonly Change[], opts: PersistOptions, hasTuned: boolean): PersistFileText | null {
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
  if (hasTuned)
    out.push(
      `Activate the tuned profile (apply --persist /etc --yes does it when tuned runs): tuned-adm profile ${tunedProfileName(opts.name)}`,
      '',
    );
  return out.length === 2 ? null : { path: 'numakit/boot.txt', text: out.join('\n') };
}

/**
 * What apply leaves in place: the new value of a change, the value found of one already set. A
 * value the profile accepts (THP defrag madvise where it prefers never) stays what the dry run
 * said it is, after a reboot too.
 */
function inPlace(p: PlannedChange): PlannedChange {
  const c = p.change;
  const accepted = (c.kind === 'sysctl' || c.kind === 'sysfs') && (c.accept ?? []).includes(p.current ?? '');
  if (p.action !== 'same' || !accepted || p.current === c.value) return p;
  return { ...p, change: { ...c, value: p.current! } as Change };
}

export function renderPersistFiles(plan: readonly PlannedChange[], opts: PersistOptions): PersistFileText[] {
  const items = plan.filter((p) => p.action !== 'absent').map(inPlace);
  const changes = items.map((p) => p.change);
  const irqs = changes.filter((c) => c.kind === 'irq-affinity');
  // irqbalance runs (steered by the plan) or runs again after a reboot (stopped by it): give it the policy script.
  const irqbalance = changes.some(
    (c) => c.kind === 'irqbalance-ban' || (c.kind === 'service' && c.target === 'irqbalance' && c.value === 'stopped'),
  );
  const tuned = tunedConf(items, opts);
  return [tuned, ...renderIrqPersist(irqs, irqbalance), bootText(changes, opts, tuned !== null)].filter(
    (f): f is PersistFileText => f !== null,
  );
}
