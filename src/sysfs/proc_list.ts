// /proc: the process ids, and each process's command line and name (comm).
import { listDir, readInto, readText } from './read.js';
import type { SysRoot } from './root.js';

/** Every numeric entry of /proc, ascending ([] when /proc is absent). */
export function listPids(root: SysRoot): number[] {
  const pids: number[] = [];
  for (const name of listDir(root, 'proc') ?? []) if (/^[1-9]\d{0,9}$/.test(name)) pids.push(Number(name));
  return pids.sort((a, b) => a - b);
}

/** Thread ids of a process (/proc/PID/task), or null when the process is gone. */
export function listTids(root: SysRoot, pid: number): number[] | null {
  const names = listDir(root, `proc/${pid}/task`);
  if (names === null) return null;
  return names
    .filter((n) => /^[1-9]\d{0,9}$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
}

/** /proc/PID/cmdline with its NUL separators as spaces (as numastat and ps show it). */
export function parseCmdline(text: string): string {
  return text.replace(/\0/g, ' ');
}

/** /proc/PID/cmdline as its argv elements (NUL-separated, the last one NUL-terminated). */
export function parseCmdlineArgs(text: string): string[] {
  const args = text.split('\0');
  if (args.at(-1) === '') args.pop();
  return args;
}

/** A process's argv elements ([] for kernel threads), or null when the process is gone. */
export function readCmdlineArgs(root: SysRoot, pid: number): string[] | null {
  const text = readText(root, `proc/${pid}/cmdline`);
  return text === null ? null : parseCmdlineArgs(text);
}

/** Command line ("" for kernel threads), or null when the process is gone. */
export function readCmdline(root: SysRoot, pid: number): string | null {
  const text = readText(root, `proc/${pid}/cmdline`);
  return text === null ? null : parseCmdline(text);
}

/**
 * A task's name as status's Name line shows it: the kernel writes both comm and Name with
 * proc_task_name (fs/proc/array.c), Name escaped (seq_escape_str: a newline as backslash-n, a
 * backslash doubled), comm as it is plus a newline.
 */
export function commAsName(comm: string): string {
  // Nearly every name has neither: it is kept as it is (10,000 names a pass).
  if (!comm.includes('\\') && !comm.includes('\n')) return comm;
  return comm.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/**
 * /proc/PID/comm as status's Name shows it (commAsName), with one read into `buf` (the kernel's
 * comm is at most 64 bytes): numastat's -p reads the Name of every process, and status is 57
 * lines the kernel formats for it. null when absent, or when it fills `buf` (not a comm file).
 */
export function readCommName(root: SysRoot, pid: number, buf: Buffer): string | null {
  const n = readInto(root, `proc/${pid}/comm`, buf);
  if (n === null || n === buf.length) return null;
  const end = n > 0 && buf[n - 1] === 10 ? n - 1 : n;
  return commAsName(buf.toString('utf8', 0, end));
}

/**
 * The first bytes of /proc/PID/cmdline (up to `buf`'s length: numastat matches the first 2,047
 * characters of "NAME CMDLINE"), NULs as spaces, with one read; null when the process is gone.
 * A command line ends where the read stops: procfs fills the whole buffer when it can
 * (get_mm_cmdline reads the process's memory page by page until `count`).
 */
export function readCmdlineHead(root: SysRoot, pid: number, buf: Buffer): string | null {
  const n = readInto(root, `proc/${pid}/cmdline`, buf);
  return n === null ? null : parseCmdline(buf.toString('utf8', 0, n));
}
