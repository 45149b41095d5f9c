// /proc/PID/comm of every process: which daemons run (irqbalance, ksmtuned, tuned, numad).
// A process that exits between listing and reading is skipped.
import { listDir, readText } from './read.js';
import type { SysRoot } from './root.js';

/** The command name (comm is at most 15 characters, newline-terminated). */
export function parseComm(text: string): string {
  return text.replace(/\n$/, '');
}

/** pid -> comm; null when /proc cannot be listed (no /proc in the tree). */
export function readComms(root: SysRoot): Map<number, string> | null {
  const entries = listDir(root, 'proc');
  if (entries === null) return null;
  const out = new Map<number, string>();
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const text = readText(root, `proc/${name}/comm`);
    if (text !== null) out.set(Number(name), parseComm(text));
  }
  return out;
}
