// /proc/interrupts (counts per CPU and the action names of each IRQ) and
// /proc/irq/N/{smp_affinity_list,effective_affinity_list}, /proc/irq/default_smp_affinity.
// smp_affinity_list is what was asked (by hand, irqbalance or the kernel's managed spreading);
// effective_affinity_list (4.15+, x86 and arm64) is where the IRQ is actually delivered, often
// a single CPU out of the asked set. See Documentation/core-api/irq/irq-affinity.rst.
import { parseCpuMask, sharedCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { MAX_CPUS } from '../model/limits.js';
import { readChunks } from './read.js';
import { readParsed, warnParse } from './read_parsed.js';
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

/** Blanks between fields; NUL and CR too (a trailing NUL or a CRLF file: tolerated as everywhere). */
const isBlank = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0;
const NEWLINE = 10;

function parseHeader(header: string): number[] {
  return header
    .trim()
    .split(/\s+/)
    .map((h) => {
      const m = /^CPU(\d{1,4})$/.exec(h);
      if (!m || Number(m[1]) >= MAX_CPUS)
        throw new SysfsParseError('interrupts header is not a CPU list', { line: 1, text: header });
      return Number(m[1]);
    });
}

/**
 * /proc/interrupts parsed from its bytes as they are read, line by line, never the whole text:
 * on a machine of 1,792 CPUs and 1,000 device IRQs the file is 20 MB, and serve reads it at
 * every scrape (issue 27). The header names the online CPUs ("CPU0 CPU1 ..."), one column each.
 */
export class InterruptsScanner {
  private cpus: number[] | null = null;
  private readonly lines: InterruptLine[] = [];
  private line = 0;
  /** The start of a line a chunk ended in. */
  private carry: Buffer = Buffer.alloc(0);
  private blank = true;

  constructor(private readonly o: InterruptsOptions = {}) {}

  /** Bytes [0, n) of `buf` (which the caller may fill again once this returns). */
  push(buf: Uint8Array, n: number): void {
    let at = 0;
    while (at < n) {
      const nl = buf.indexOf(NEWLINE, at);
      const end = nl < 0 || nl >= n ? n : nl;
      if (end === n) {
        this.carry = Buffer.concat([this.carry, buf.subarray(at, n)]);
        return;
      }
      if (this.carry.length > 0) {
        const whole = Buffer.concat([this.carry, buf.subarray(at, end)]);
        this.carry = Buffer.alloc(0);
        this.take(whole, 0, whole.length);
      } else this.take(buf, at, end);
      at = end + 1;
    }
  }

  /** Everything pushed, parsed; null when the file held only blanks (an absent fact: 'empty'). */
  end(): Interrupts | null {
    if (this.carry.length > 0) this.take(this.carry, 0, this.carry.length);
    this.carry = Buffer.alloc(0);
    if (this.blank) return null;
    return { cpus: this.cpus ?? [], lines: this.lines };
  }

  private take(b: Uint8Array, s: number, e: number): void {
    this.line++;
    let p = s;
    while (p < e && isBlank(b[p]!)) p++;
    if (p < e) this.blank = false;
    if (this.cpus === null) {
      if (p === e && this.line === 1) return void this.line--; // leading blank lines: the header is the first text
      this.cpus = parseHeader(Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('utf8'));
      return;
    }
    const digits = p;
    let irq = 0;
    for (; p < e && b[p]! >= 48 && b[p]! <= 57; p++) irq = irq * 10 + b[p]! - 48;
    // NMI, LOC, ERR, MIS ...: not device IRQs; and the rows not asked for.
    if (p === digits || p - digits > 10 || b[p] !== 58) return;
    if (this.o.irqs !== undefined && !this.o.irqs.has(irq)) return;
    p++;
    const counts: Record<number, number> = {};
    let total = 0;
    const cpus = this.cpus;
    for (let c = 0; c < cpus.length; c++) {
      // The kernel pads each count to 10 columns: spaces first, then its digits.
      while (p < e && b[p] === 32) p++;
      while (p < e && isBlank(b[p]!)) p++;
      const start = p;
      let v = 0;
      for (let d = b[p]! - 48; p < e && d >= 0 && d <= 9; d = b[++p]! - 48) v = v * 10 + d;
      const ok = p === e || isBlank(b[p]!);
      if (!ok || p === start || !Number.isSafeInteger(v))
        throw new SysfsParseError('interrupt count is not a number', { line: this.line, text: this.text(b, s, e) });
      if (v !== 0) counts[cpus[c]!] = v;
      total += v;
    }
    if (!Number.isSafeInteger(total))
      throw new SysfsParseError('interrupt counts add up beyond 2^53', { line: this.line, text: this.text(b, s, e) });
    const desc = this.text(b, p, e).trim();
    this.lines.push({ irq, counts, total, desc: desc === '' ? '' : desc.split(/\s+/).join(' ') });
  }

  private text(b: Uint8Array, s: number, e: number): string {
    return Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('utf8');
  }
}

/** Parses /proc/interrupts' text (see InterruptsScanner; a file of blanks has no header: an error here). */
export function parseInterrupts(text: string, o: InterruptsOptions = {}): Interrupts {
  const s = new InterruptsScanner(o);
  const b = Buffer.from(text);
  s.push(b, b.length);
  const r = s.end();
  if (r === null) throw new SysfsParseError('interrupts header is not a CPU list', { line: 1, text });
  return r;
}

/** /proc/interrupts, read in chunks and parsed as it is read; null when absent (or unparseable: warned). */
export function readInterrupts(root: SysRoot, o: InterruptsOptions = {}): Interrupts | null {
  const path = 'proc/interrupts';
  const s = new InterruptsScanner(o);
  try {
    if (!readChunks(root, path, (buf, n) => s.push(buf, n)).ok) return null;
    return s.end();
  } catch (e) {
    if (!(e instanceof SysfsParseError)) throw e;
    warnParse(root, e.at(path));
    return null;
  }
}

export interface IrqAffinity {
  readonly irq: number;
  /** smp_affinity_list: the CPUs asked for. */
  readonly affinity: readonly number[];
  /** effective_affinity_list where the kernel has it, else null. */
  readonly effective: readonly number[] | null;
}

/** Shared lists (model/cpuset.ts sharedCpuList): 1,000 IRQs allowed on the same 1,792 CPUs hold one array. */
function readList(root: SysRoot, path: string): readonly number[] | null {
  return readParsed(root, path, sharedCpuList, { emptyIsValue: true });
}

/** Affinity of one IRQ; null when /proc/irq/N is absent (no such IRQ, or /proc/irq hidden). */
export function readIrqAffinity(root: SysRoot, irq: number): IrqAffinity | null {
  const affinity = readList(root, `proc/irq/${irq}/smp_affinity_list`);
  if (affinity === null) return null;
  return { irq, affinity, effective: readList(root, `proc/irq/${irq}/effective_affinity_list`) };
}

/**
 * The CPUs that serve an IRQ: its effective_affinity_list, else (absent or empty: an older
 * kernel, another architecture) its smp_affinity_list; null when /proc/irq/N is absent. One read
 * an IRQ where the kernel has the effective list (serve reads this for every device IRQ a scrape).
 */
export function readIrqServing(root: SysRoot, irq: number): readonly number[] | null {
  const effective = readList(root, `proc/irq/${irq}/effective_affinity_list`);
  if (effective !== null && effective.length > 0) return effective;
  return readList(root, `proc/irq/${irq}/smp_affinity_list`);
}

/** /proc/irq/default_smp_affinity (a hex mask): the affinity new IRQs start with. */
export function readDefaultIrqAffinity(root: SysRoot): number[] | null {
  return readParsed(root, 'proc/irq/default_smp_affinity', parseCpuMask);
}
