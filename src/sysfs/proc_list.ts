// /proc: the process ids, and each process's command line and name (comm).
import { listDir, readText } from './read.js';
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

/** Command line ("" for kernel threads), or null when the process is gone. */
export function readCmdline(root: SysRoot, pid: number): string | null {
  const text = readText(root, `proc/${pid}/cmdline`);
  return text === null ? null : parseCmdline(text);
}

/** /proc/PID/comm without its newline, or null. */
export function readComm(root: SysRoot, pid: number): string | null {
  const text = readText(root, `proc/${pid}/comm`);
  return text === null ? null : text.replace(/\n$/, '');
}
