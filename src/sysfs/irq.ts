// /proc/interrupts (counts per CPU and the action names of each IRQ) and
// /proc/irq/N/{smp_affinity_list,effective_affinity_list}, /proc/irq/default_smp_affinity.
// smp_affinity_list is what was asked (by hand, irqbalance or the kernel's managed spreading);
// effective_affinity_list (4.15+, x86 and arm64) is where the IRQ is actually delivered, often
// a single CPU out of the asked set. See Documentation/core-api/irq/irq-affinity.rst.
import { parseCpuList, parseCpuMask } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { MAX_CPUS } from '../model/limits.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface InterruptLine {
  /** IRQ number; named rows (NMI, LOC, ...) are left out. */
  readonly irq: number;
  /** Count per CPU, keyed by CPU id from the header. */
  readonly counts: Record<number, number>;
  readonly total: number;
  /** Everything after the counts: chip, hwirq and action names ("IR-PCI-MSI 524288-edge nvme0q0"). */
  readonly desc: string;
}

export interface Interrupts {
  readonly cpus: number[];
  readonly lines: InterruptLine[];
}

/** Parses /proc/interrupts. The header names the online CPUs ("CPU0 CPU1 ..."), one column each. */
export function parseInterrupts(text: string): Interrupts {
  const rows = text.split('\n');
  const header = rows[0] ?? '';
  const cpus = header
    .trim()
    .split(/\s+/)
    .map((h) => {
      const m = /^CPU(\d{1,4})$/.exec(h);
      if (!m || Number(m[1]) >= MAX_CPUS)
        throw new SysfsParseError('interrupts header is not a CPU list', { line: 1, text: header });
      return Number(m[1]);
    });
  const lines: InterruptLine[] = [];
  rows.slice(1).forEach((row, i) => {
    const m = /^\s*(\d{1,10}):(.*)$/.exec(row);
    if (!m) return; // NMI, LOC, ERR, MIS ...: not device IRQs
    const fields = m[2]!.trim().split(/\s+/);
    const counts: Record<number, number> = {};
    let total = 0;
    for (let c = 0; c < cpus.length; c++) {
      // One regex and one Number() a count: a file has a column per CPU on every line.
      const f = fields[c];
      const v = f !== undefined && /^\d+$/.test(f) ? Number(f) : NaN;
      if (!Number.isSafeInteger(v))
        throw new SysfsParseError('interrupt count is not a number', { line: i + 2, text: row });
      counts[cpus[c]!] = v;
      total += v;
    }
    if (!Number.isSafeInteger(total))
      throw new SysfsParseError('interrupt counts add up beyond 2^53', { line: i + 2, text: row });
    lines.push({ irq: Number(m[1]), counts, total, desc: fields.slice(cpus.length).join(' ') });
  });
  return { cpus, lines };
}

export function readInterrupts(root: SysRoot): Interrupts | null {
  return readParsed(root, 'proc/interrupts', parseInterrupts);
}

export interface IrqAffinity {
  readonly irq: number;
  /** smp_affinity_list: the CPUs asked for. */
  readonly affinity: number[];
  /** effective_affinity_list where the kernel has it, else null. */
  readonly effective: number[] | null;
}

function readList(root: SysRoot, path: string): number[] | null {
  return readParsed(root, path, parseCpuList, { emptyIsValue: true });
}

/** Affinity of one IRQ; null when /proc/irq/N is absent (no such IRQ, or /proc/irq hidden). */
export function readIrqAffinity(root: SysRoot, irq: number): IrqAffinity | null {
  const affinity = readList(root, `proc/irq/${irq}/smp_affinity_list`);
  if (affinity === null) return null;
  return { irq, affinity, effective: readList(root, `proc/irq/${irq}/effective_affinity_list`) };
}

/** /proc/irq/default_smp_affinity (a hex mask): the affinity new IRQs start with. */
export function readDefaultIrqAffinity(root: SysRoot): number[] | null {
  return readParsed(root, 'proc/irq/default_smp_affinity', parseCpuMask);
}
