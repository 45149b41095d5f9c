// irqbalance's settings file: /etc/default/irqbalance (Debian) or /etc/sysconfig/irqbalance
// (RHEL). IRQs named with --banirq in IRQBALANCE_ARGS, and CPUs in IRQBALANCE_BANNED_CPULIST /
// IRQBALANCE_BANNED_CPUS, are left alone by irqbalance: hand-set affinities there survive.
import type { IrqbalanceConfig } from '../model/doctor_input.js';
import { parseCpuList, parseCpuMask } from '../model/cpuset.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

export const IRQBALANCE_CONFIGS = ['etc/default/irqbalance', 'etc/sysconfig/irqbalance'];

function unquote(v: string): string {
  return v.trim().replace(/^(["'])(.*)\1$/, '$2');
}

/** Parses the shell-style KEY=value file; comments and unknown keys are ignored. */
export function parseIrqbalanceConfig(text: string): Omit<IrqbalanceConfig, 'path'> {
  const bannedIrqs: number[] = [];
  let bannedCpus: number[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const m = /^(?:export\s+)?([A-Z_]+)=(.*)$/.exec(line);
    if (!m) continue;
    const value = unquote(m[2]!);
    if (m[1] === 'IRQBALANCE_ARGS') {
      for (const b of value.matchAll(/(?:--banirq[= ]|-i\s*)(\d+)/g)) bannedIrqs.push(Number(b[1]));
    } else if (m[1] === 'IRQBALANCE_BANNED_CPULIST') bannedCpus = parseCpuList(value);
    else if (m[1] === 'IRQBALANCE_BANNED_CPUS' && bannedCpus.length === 0) bannedCpus = parseCpuMask(value);
  }
  return { bannedIrqs: [...new Set(bannedIrqs)].sort((a, b) => a - b), bannedCpus };
}

/** The first settings file present, or null. */
export function readIrqbalanceConfig(root: SysRoot): IrqbalanceConfig | null {
  for (const path of IRQBALANCE_CONFIGS) {
    const f = readFact(root, path, parseIrqbalanceConfig, { emptyIsValue: true });
    if (f.value !== null) return { path, ...f.value };
    if ('absent' in f && f.absent === 'unparseable') return null;
  }
  return null;
}
