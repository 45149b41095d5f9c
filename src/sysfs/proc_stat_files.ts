// /proc/PID/stat of every process, every pass, as cheaply as the kernel allows: the agent's idle
// cost is mostly this read (a profile of an idle agent: open, fstat, read, close and a string per
// process, then their garbage). On the running system each file stays open between passes and is
// read again with one pread at offset 0 (procfs regenerates a seq_file read from offset 0) into
// one reused buffer, parsed from the bytes: one syscall and no allocation per process.
// An open /proc/PID/stat holds the process's struct pid, not its number: once the process is gone
// (reaped) every read fails with ESRCH, so a reused PID is never mistaken for the old process; the
// file is then closed and the number opened afresh. Any other root (a snapshot, a test tree: a
// jail) is read with one open and read a pass (read.ts readInto: the jail), parsed from the same
// buffer; a file the byte parser refuses goes through readProcStat (its warning).
import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { isRefused } from '../model/fact.js';
import { MAX_CPUS } from '../model/limits.js';
import { commAsName } from './proc_list.js';
import { readProcStatFact, readTaskStat, type TaskStat } from './proc_task_stat.js';
import { listedChild } from './jail.js';
import { JAIL_OPEN_FLAGS, readInto } from './read.js';
import type { SysRoot } from './root.js';

/** The fields of /proc/PID/stat the agent's screen needs (see proc_task_stat.ts). */
export interface StatFields {
  /** utime + stime, clock ticks. */
  cpuTicks: number;
  startTicks: number;
  threads: number;
  rssPages: number;
  vsizeBytes: number;
  /** minflt + majflt (fields 10 and 12): a process's hugetlbfs pages change only with a fault or an mmap. */
  faults: number;
}

/** Files kept open at most: past it, a file is opened, read and closed each time (RLIMIT_NOFILE can be 1024). */
export const MAX_OPEN = 512;
/** A stat line is under 400 bytes; comm is at most 64 (TASK_COMM_LEN 16, or a kthread's longer name). */
const BUF_BYTES = 4096;
const SPACE = 32;
const NEWLINE = 10;

/**
 * Reads the stat fields numbered in `fields` (ascending, each after comm: 3 on) from `buf[0, n)`
 * into `values`, in order; false when the line is not a stat line (no ')', a wanted field missing
 * or not a count). Fields are counted from the LAST ')' (comm may hold spaces and parentheses);
 * fields not wanted are skipped unread (state is a letter, priority and nice may be negative).
 * No allocation.
 */
export function parseStatFieldBytes(
  buf: Uint8Array,
  n: number,
  fields: Int32Array | readonly number[],
  values: Float64Array,
): boolean {
  let at = n - 1;
  while (at >= 0 && buf[at] !== 0x29) at--;
  if (at < 0) return false;
  at++;
  let field = 2;
  let want = 0;
  while (want < fields.length) {
    while (at < n && (buf[at] === SPACE || buf[at] === NEWLINE)) at++;
    if (at >= n) return false;
    field++;
    let v = 0;
    let ok = true;
    const start = at;
    for (; at < n && buf[at] !== SPACE && buf[at] !== NEWLINE; at++) {
      const c = buf[at]! - 48;
      if (c < 0 || c > 9) ok = false;
      v = v * 10 + c;
    }
    if (field !== fields[want]) continue;
    if (!ok || at === start || !Number.isSafeInteger(v)) return false;
    values[want++] = v;
  }
  return true;
}

/** minflt, majflt, utime, stime, num_threads, starttime, vsize, rss (proc(5) numbering). */
const PROCESS_FIELDS = Int32Array.of(10, 12, 14, 15, 20, 22, 23, 24);
/** utime, stime, processor. */
const THREAD_FIELDS = Int32Array.of(14, 15, 39);
const values = new Float64Array(PROCESS_FIELDS.length);

/** Parses the fields the screen needs from `buf[0, n)` into `out`; false when the line is not a stat line. */
export function parseStatBytes(buf: Uint8Array, n: number, out: StatFields): boolean {
  if (!parseStatFieldBytes(buf, n, PROCESS_FIELDS, values)) return false;
  out.faults = values[0]! + values[1]!;
  out.cpuTicks = values[2]! + values[3]!;
  out.threads = values[4]!;
  out.startTicks = values[5]!;
  out.vsizeBytes = values[6]!;
  out.rssPages = values[7]!;
  return true;
}

export type StatRead = 'read' | 'gone' | 'refused';

/** comm of a stat line in `buf[0, n)`: between the first '(' and the last ')' (comm may hold either). */
export function statComm(buf: Uint8Array, n: number): string {
  const open = buf.indexOf(0x28);
  let close = n - 1;
  while (close > open && buf[close] !== 0x29) close--;
  return Buffer.from(buf.buffer, buf.byteOffset, n).toString('utf8', open + 1, close);
}

/**
 * The bytes a comm must be, as the kernel keeps it, for status's Name to show each of `names`
 * (commAsName escapes a backslash and a newline); null when a name cannot be told from bytes
 * (one holding U+FFFD, which any invalid UTF-8 decodes to): every comm is then decoded.
 */
export function commBytesOf(names: Iterable<string>): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (const name of names) {
    if (name.includes('\uFFFD')) return null;
    const raw = name.replace(/\\(n|\\)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
    // A name no comm escapes to (a lone backslash) matches none.
    if (commAsName(raw) === name) out.push(Buffer.from(raw));
  }
  return out;
}

/** Whether the comm of the stat line in `buf[0, n)` (statComm's bytes) is one of `wanted`. */
function commIsOneOf(buf: Uint8Array, n: number, wanted: readonly Uint8Array[]): boolean {
  const open = buf.indexOf(0x28);
  let close = n - 1;
  while (close > open && buf[close] !== 0x29) close--;
  const len = close - open - 1;
  next: for (const w of wanted) {
    if (w.length !== len) continue;
    for (let i = 0; i < len; i++) if (buf[open + 1 + i] !== w[i]) continue next;
    return true;
  }
  return false;
}

/** What a thread's stat gives the sampler: its CPU ticks and the CPU it last ran on. */
export interface ThreadFields {
  ticks: number;
  processor: number;
}

/**
 * Parses utime + stime (fields 14, 15) and processor (39) from `buf[0, n)` into `out`; false
 * when the line is not a stat line or names a CPU past MAX_CPUS.
 */
export function parseThreadBytes(buf: Uint8Array, n: number, out: ThreadFields): boolean {
  if (!parseStatFieldBytes(buf, n, THREAD_FIELDS, values) || values[2]! >= MAX_CPUS) return false;
  out.ticks = values[0]! + values[1]!;
  out.processor = values[2]!;
  return true;
}

/** The /proc/PID/stat reader of one sampler: open files by pid. */
export class ProcStatFiles {
  private readonly fds = new Map<number, number>();
  private readonly buf = Buffer.allocUnsafeSlow(BUF_BYTES);
  private readonly fast: boolean;
  private readonly jail: boolean;
  /** Opens tried on the running system (tests: with probeGone, a process gone before its first read costs none). */
  opens = 0;

  /**
   * probeGone: most pids read are of short-lived processes (the watch's fork events), so a
   * stat that does not throw first tells a gone one, where a failed open's exception costs three
   * times as much. Not for a reader of listed pids: there nearly all are alive, and the stat
   * (about 4.5 us natively, most of an open) would be paid by each.
   */
  constructor(
    private readonly root: SysRoot,
    private readonly o: { readonly probeGone?: boolean } = {},
  ) {
    const plain = root.tree === undefined && root.onAccess === undefined;
    this.fast = root.isReal && plain;
    this.jail = !root.isReal && plain;
  }

  /**
   * Fills `out` from the process's stat: 'read'; 'gone' when it exited (or its stat is unusable:
   * warned); 'refused' when this user may not read it (/proc mounted with hidepid=noaccess: EPERM).
   */
  read(pid: number, out: StatFields): StatRead {
    const r = this.fill(pid, out);
    return typeof r === 'number' || typeof r === 'object' ? 'read' : r;
  }

  /**
   * As read(), with the process's comm when it was read (stat's field 2, as the kernel keeps it:
   * status's Name is the same name escaped, sysfs/proc_list.ts commAsName). One string a process:
   * read() makes none. With `only` (commBytesOf), a comm read from the bytes is a string only
   * when it is one of those (doctor looks for three daemons among 10,000 processes).
   */
  readNamed(pid: number, out: StatFields, only?: readonly Uint8Array[]): { read: StatRead; comm: string | null } {
    const r = this.fill(pid, out);
    if (typeof r === 'number')
      return { read: 'read', comm: only && !commIsOneOf(this.buf, r, only) ? null : statComm(this.buf, r) };
    return typeof r === 'object' ? { read: 'read', comm: r.comm } : { read: r, comm: null };
  }

  /** Fills `out`: the bytes of the line in `buf` when it was parsed from them, its TaskStat when read as text, else why not. */
  private fill(pid: number, out: StatFields): number | TaskStat | 'gone' | 'refused' {
    if (this.fast) {
      const r = this.readFast(pid, out);
      if (r !== null) return r === false ? 'gone' : r;
    } else {
      // Any other root (a capture: a jail): one open and read, parsed from the bytes. A file that
      // could not be read, one the parser refuses or one that fills the buffer is read again by
      // readProcStatFact: it says why (gone, refused) or warns.
      const n = this.jail ? this.readJailed(pid) : readInto(this.root, `proc/${pid}/stat`, this.buf);
      if (n !== null && n > 0 && n < BUF_BYTES && parseStatBytes(this.buf, n, out)) return n;
    }
    const fact = readProcStatFact(this.root, pid);
    const st = fact.value;
    if (st === null) return isRefused(fact) ? 'refused' : 'gone';
    out.cpuTicks = st.cpuTicks;
    out.startTicks = st.startTicks;
    out.threads = st.threads;
    out.rssPages = st.rssPages;
    out.vsizeBytes = st.vsizeBytes;
    out.faults = st.faults;
    return st;
  }

  /** The bytes read (parsed into `out`), false when the process is gone; null: let readProcStat decide (an error it names, a line it warns about). */
  private readFast(pid: number, out: StatFields): number | false | null {
    let fd = this.fds.get(pid);
    let n: number;
    try {
      if (fd === undefined) {
        if (this.o.probeGone === true && statSync(`/proc/${pid}`, { throwIfNoEntry: false }) === undefined)
          return false;
        this.opens++;
        fd = openSync(`/proc/${pid}/stat`, constants.O_RDONLY);
        if (this.fds.size < MAX_OPEN) this.fds.set(pid, fd);
      }
      n = readSync(fd, this.buf, 0, BUF_BYTES, 0);
    } catch (e) {
      this.close(pid, fd);
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ESRCH' || code === 'ENOENT' ? false : null;
    }
    if (this.fds.get(pid) !== fd) closeSync(fd);
    if (n > 0 && n < BUF_BYTES && parseStatBytes(this.buf, n, out)) return n;
    this.close(pid, this.fds.get(pid));
    return null;
  }

  /**
   * One open and read of a process's stat in a jail: at the path the listing of proc/ resolved
   * (the sampler lists it each pass), without the string work of each read's resolution (10,000
   * a scrape on the large capture). Anything but a plain read of a listed process goes through
   * readInto: its resolution, absent reasons and warnings.
   */
  private readJailed(pid: number): number | null {
    const dir = listedChild(this.root, 'proc', String(pid));
    if (dir === null) return readInto(this.root, `proc/${pid}/stat`, this.buf);
    let fd: number;
    try {
      fd = openSync(`${dir}/stat`, JAIL_OPEN_FLAGS);
    } catch {
      return readInto(this.root, `proc/${pid}/stat`, this.buf);
    }
    try {
      return readSync(fd, this.buf, 0, BUF_BYTES, 0);
    } catch {
      return readInto(this.root, `proc/${pid}/stat`, this.buf);
    } finally {
      closeSync(fd);
    }
  }

  private close(pid: number, fd: number | undefined): void {
    if (fd === undefined) return;
    this.fds.delete(pid);
    try {
      closeSync(fd);
    } catch {
      // already closed: nothing to do
    }
  }

  /**
   * CPU ticks and last CPU of one thread: one open and read into the buffer, parsed from the bytes;
   * null when it is gone. A line the byte parser refuses goes through readTaskStat (its warning).
   */
  readThread(pid: number, tid: number, out: ThreadFields): boolean {
    const rel = `proc/${pid}/task/${tid}/stat`;
    const n = readInto(this.root, rel, this.buf);
    if (n === null) return false;
    if (n > 0 && n < BUF_BYTES && parseThreadBytes(this.buf, n, out)) return true;
    const st = readTaskStat(this.root, pid, tid);
    if (st === null) return false;
    out.ticks = st.cpuTicks;
    out.processor = st.processor;
    return true;
  }

  /** Closes the file of a process no longer read (gone, or a kernel thread not read for a while). */
  forget(pid: number): void {
    this.close(pid, this.fds.get(pid));
  }

  /** Closes the files of processes not in `keep`. */
  retain(keep: ReadonlySet<number>): void {
    for (const pid of this.fds.keys()) if (!keep.has(pid)) this.forget(pid);
  }

  /** Files open now (tests). */
  get open(): number {
    return this.fds.size;
  }

  /** Closes every file (the sampler is done). */
  closeAll(): void {
    for (const pid of [...this.fds.keys()]) this.forget(pid);
  }
}
