// /proc/interrupts (counts per CPU and the action names of each IRQ) and
// /proc/irq/N/{smp_affinity_list,effective_affinity_list}, /proc/irq/default_smp_affinity.
// smp_affinity_list is what was asked (by hand, irqbalance or the kernel's managed spreading);
// effective_affinity_list (4.15+, x86 and arm64) is where the IRQ is actually delivered, often
// a single CPU out of the asked set. See Documentation/core-api/irq/irq-affinity.rst.
import { parseCpuMask, sharedCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { MAX_CPUS } from '../model/limits.js';
import { readChunks, resolveSubdirs } from './read.js';
import { readParsed, warnParse } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface InterruptLine {
  /** IRQ number; named rows (NMI, LOC, ...) are left out. */
  readonly irq: number;
  /**
   * Count per CPU that served any, keyed by CPU id from the header: a CPU with 0 is left out (a
   * queue IRQ of a 1,792-CPU machine is served by one or a few of its columns). Empty when the
   * counts were summed by group (InterruptsOptions.sumBy): see `sums`. A Map, not an object keyed
   * by CPU id: an object given the key 900 first grows a 1,400-slot array of holes in V8, and
   * doctor keeps one per device IRQ (1,024 rows of a 1,792-CPU machine: megabytes to collect).
   */
  readonly counts: ReadonlyMap<number, number>;
  readonly total: number;
  /** With InterruptsOptions.sumBy: the counts of each group's CPUs added up (by group index). */
  readonly sums?: Float64Array;
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
  /**
   * Add each row's counts up by group as they are parsed, with no count kept per CPU (serve: a
   * device's interrupts on its node's CPUs and on the others, at every scrape): `groupOf[cpu]`
   * is the group of a CPU id, -1 or past the end for none (counted in `total` only).
   */
  readonly sumBy?: { readonly groupOf: Int32Array; readonly groups: number };
}

/** Blanks between fields; NUL and CR too (a trailing NUL or a CRLF file: tolerated as everywhere). */
const isBlank = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0;
const NEWLINE = 10;
const SPACES4 = 0x20202020;

/** The last header parsed, and its CPUs: serve reads the file at every scrape, the header changes with hotplug only. */
let lastHeader: { readonly text: string; readonly cpus: readonly number[] } | null = null;

function parseHeader(header: string): number[] {
  if (lastHeader?.text === header) return [...lastHeader.cpus];
  const cpus = parseHeaderText(header);
  lastHeader = { text: header, cpus: [...cpus] };
  return cpus;
}

function parseHeaderText(header: string): number[] {
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
 * every scrape. The header names the online CPUs ("CPU0 CPU1 ..."), one column each.
 * A line a chunk ends in is carried over in one reused buffer; a count's padding (the kernel
 * prints each in 10 columns, mostly spaces before a 0) is skipped four bytes at a time.
 */
export class InterruptsScanner {
  private cpus: number[] | null = null;
  /** The group of each column (options.sumBy), from the header. */
  private colGroup: Int32Array | null = null;
  private readonly lines: InterruptLine[] = [];
  private line = 0;
  /** The start of a line a chunk ended in: carry[0, carried). */
  private carry: Buffer = Buffer.alloc(0);
  private carried = 0;
  private blank = true;
  private view: { of: Uint8Array; dv: DataView } | null = null;

  constructor(private readonly o: InterruptsOptions = {}) {}

  /** Bytes [0, n) of `buf` (which the caller may fill again once this returns). */
  push(buf: Uint8Array, n: number): void {
    let at = 0;
    while (at < n) {
      const nl = buf.indexOf(NEWLINE, at);
      if (nl < 0 || nl >= n) {
        this.keep(buf, at, n);
        return;
      }
      if (this.carried > 0) {
        this.keep(buf, at, nl);
        const len = this.carried;
        this.carried = 0;
        this.take(this.carry, 0, len);
      } else this.take(buf, at, nl);
      at = nl + 1;
    }
  }

  /** Appends buf[s, e) to the carried line (grown by doubling: one buffer for the whole file). */
  private keep(buf: Uint8Array, s: number, e: number): void {
    const need = this.carried + (e - s);
    if (need > this.carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.carry.length * 2, 4096));
      this.carry.copy(grown, 0, 0, this.carried);
      this.carry = grown;
    }
    this.carry.set(buf.subarray(s, e), this.carried);
    this.carried = need;
  }

  /** Everything pushed, parsed; null when the file held only blanks (an absent fact: 'empty'). */
  end(): Interrupts | null {
    if (this.carried > 0) {
      const n = this.carried;
      this.carried = 0;
      this.take(this.carry, 0, n);
    }
    if (this.blank) return null;
    return { cpus: this.cpus ?? [], lines: this.lines };
  }

  private dataView(b: Uint8Array): DataView {
    if (this.view?.of !== b) this.view = { of: b, dv: new DataView(b.buffer, b.byteOffset, b.byteLength) };
    return this.view.dv;
  }

  private take(b: Uint8Array, s: number, e: number): void {
    this.line++;
    let p = s;
    while (p < e && isBlank(b[p]!)) p++;
    if (p < e) this.blank = false;
    if (this.cpus === null) {
      if (p === e && this.line === 1) return void this.line--; // leading blank lines: the header is the first text
      this.cpus = parseHeader(Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('utf8'));
      const g = this.o.sumBy?.groupOf;
      if (g !== undefined) this.colGroup = Int32Array.from(this.cpus, (cpu) => (cpu < g.length ? g[cpu]! : -1));
      return;
    }
    const digits = p;
    let irq = 0;
    for (; p < e && b[p]! >= 48 && b[p]! <= 57; p++) irq = irq * 10 + b[p]! - 48;
    // NMI, LOC, ERR, MIS ...: not device IRQs; and the rows not asked for.
    if (p === digits || p - digits > 10 || b[p] !== 58) return;
    if (this.o.irqs !== undefined && !this.o.irqs.has(irq)) return;
    p++;
    const groups = this.o.sumBy?.groups;
    const row: Row = {
      total: 0,
      counts: groups === undefined ? new Map() : null,
      sums: groups === undefined ? null : new Float64Array(groups),
    };
    p = scanCounts(b, p, e, { cpus: this.cpus, colGroup: this.colGroup, dv: this.dataView(b) }, row);
    if (p < 0)
      throw new SysfsParseError('interrupt count is not a number', { line: this.line, text: this.text(b, s, e) });
    const { total, counts, sums } = row;
    if (!Number.isSafeInteger(total))
      throw new SysfsParseError('interrupt counts add up beyond 2^53', { line: this.line, text: this.text(b, s, e) });
    const desc = this.text(b, p, e).trim();
    const norm = desc === '' ? '' : desc.split(/\s+/).join(' ');
    this.lines.push(
      sums === null
        ? { irq, counts: counts ?? NO_COUNTS, total, desc: norm }
        : { irq, counts: NO_COUNTS, total, sums, desc: norm },
    );
  }

  private text(b: Uint8Array, s: number, e: number): string {
    return Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('utf8');
  }
}

/** The counts of every row whose counts were summed by group (none kept per CPU). */
const NO_COUNTS: ReadonlyMap<number, number> = new Map();

/** One row's counts as scanCounts adds them up. */
interface Row {
  total: number;
  /** Per CPU id; null when sums are asked for. */
  readonly counts: Map<number, number> | null;
  /** Per group (InterruptsOptions.sumBy), else null. */
  readonly sums: Float64Array | null;
}

/**
 * The counts of one row from b[p] on (one per column, each padded with spaces to 10 columns),
 * added to `row`; the offset after the last, or -1 when one is not a count. No allocation: the
 * loop runs 1.8 million times a read on 1,792 CPUs, where most counts are "         0".
 */
function scanCounts(
  b: Uint8Array,
  p: number,
  e: number,
  cols: { readonly cpus: readonly number[]; readonly colGroup: Int32Array | null; readonly dv: DataView },
  row: Row,
): number {
  const { cpus, colGroup, dv } = cols;
  const { counts, sums } = row;
  const n = cpus.length;
  const e4 = e - 4;
  let total = 0;
  for (let c = 0; c < n; c++) {
    while (p <= e4 && dv.getUint32(p, true) === SPACES4) p += 4;
    let x = p < e ? b[p]! : NEWLINE;
    while (p < e && isBlank(x)) x = b[++p]!;
    const start = p;
    let v = 0;
    while (p < e && x >= 48 && x <= 57) {
      v = v * 10 + x - 48;
      x = b[++p]!;
    }
    if (p === start || (p < e && !isBlank(x)) || v > Number.MAX_SAFE_INTEGER) return -1;
    if (v === 0) continue;
    total += v;
    if (counts !== null) counts.set(cpus[c]!, v);
    else if (sums !== null && colGroup !== null && colGroup[c]! >= 0) sums[colGroup[c]!]! += v;
  }
  row.total = total;
  return p;
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

/** From this many IRQs on, proc/irq is listed first (resolveSubdirs): the listing costs about what 16 lookups do. */
const LIST_IRQS_FROM = 16;

/** Affinity of each IRQ of `irqs` that has a /proc/irq/N (readIrqAffinity), by IRQ. */
export function readIrqAffinities(root: SysRoot, irqs: readonly number[]): Map<number, IrqAffinity> {
  if (irqs.length >= LIST_IRQS_FROM) resolveSubdirs(root, 'proc/irq');
  const out = new Map<number, IrqAffinity>();
  for (const irq of irqs) {
    const a = readIrqAffinity(root, irq);
    if (a !== null) out.set(irq, a);
  }
  return out;
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
