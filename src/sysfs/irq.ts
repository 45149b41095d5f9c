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
  /**
   * Count per CPU that served any, keyed by CPU id from the header: a CPU with 0 is left out (a
   * queue IRQ of a 1,792-CPU machine is served by one or a few of its columns).
   */
  readonly counts: Record<number, number>;
  readonly total: number;
  /** Everything after the counts: chip, hwirq and action names ("IR-PCI-MSI 524288-edge nvme0q0"). */
  readonly desc: string;
}

export interface Interrupts {
  readonly cpus: number[];
  readonly lines: InterruptLine[];
}

export interface InterruptsOptions {
  /** Only these IRQs' rows are read (the others cost a look at their number); default every row. */
  readonly irqs?: ReadonlySet<number>;
}

const isBlank = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;

/**
 * Parses /proc/interrupts. The header names the online CPUs ("CPU0 CPU1 ..."), one column each.
 * One scan of the text, no split: on a machine of 1,792 CPUs and 1,000 device IRQs the file is
 * 20 MB, and serve reads it at every scrape (issue 27).
 */
export function parseInterrupts(text: string, o: InterruptsOptions = {}): Interrupts {
  const nl = text.indexOf('\n');
  const header = nl < 0 ? text : text.slice(0, nl);
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
  let line = 1;
  for (let at = nl < 0 ? text.length : nl + 1; at < text.length; ) {
    line++;
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const row = { at, end };
    at = end + 1;
    let p = row.at;
    while (p < end && isBlank(text.charCodeAt(p))) p++;
    let irq = 0;
    const digits = p;
    for (let c = text.charCodeAt(p) - 48; p < end && c >= 0 && c <= 9; c = text.charCodeAt(++p) - 48)
      irq = irq * 10 + c;
    // NMI, LOC, ERR, MIS ...: not device IRQs; and the rows not asked for.
    if (p === digits || p - digits > 10 || text.charCodeAt(p) !== 58) continue;
    if (o.irqs !== undefined && !o.irqs.has(irq)) continue;
    p++;
    const counts: Record<number, number> = {};
    let total = 0;
    for (let c = 0; c < cpus.length; c++) {
      while (p < end && isBlank(text.charCodeAt(p))) p++;
      const start = p;
      let v = 0;
      let ok = true;
      for (; p < end && !isBlank(text.charCodeAt(p)); p++) {
        const d = text.charCodeAt(p) - 48;
        if (d < 0 || d > 9) ok = false;
        v = v * 10 + d;
      }
      if (!ok || p === start || !Number.isSafeInteger(v))
        throw new SysfsParseError('interrupt count is not a number', { line, text: text.slice(row.at, end) });
      if (v !== 0) counts[cpus[c]!] = v;
      total += v;
    }
    if (!Number.isSafeInteger(total))
      throw new SysfsParseError('interrupt counts add up beyond 2^53', { line, text: text.slice(row.at, end) });
    const desc = text.slice(p, end).trim();
    lines.push({ irq, counts, total, desc: desc === '' ? '' : desc.split(/\s+/).join(' ') });
  }
  return { cpus, lines };
}

export function readInterrupts(root: SysRoot, o: InterruptsOptions = {}): Interrupts | null {
  return readParsed(root, 'proc/interrupts', (text) => parseInterrupts(text, o));
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
