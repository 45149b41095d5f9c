// /proc/stat: time every CPU spent in each state since boot, in clock ticks (USER_HZ). The
// agent takes two readings an interval apart to know how busy each node's CPUs were.
// Columns after "cpuN": user nice system idle iowait irq softirq steal guest guest_nice, see
// proc(5); guest time is already counted in user, so it is not added again. Older kernels print
// fewer columns (iowait since 2.5.41, steal since 2.6.11): missing ones count as 0.
import { SysfsParseError } from '../model/errors.js';
import { isSafeDecimal, MAX_CPUS } from '../model/limits.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

export interface CpuTimes {
  /** Ticks not idle (idle and iowait excluded). */
  readonly busy: number;
  /** All ticks (guest columns excluded). */
  readonly total: number;
}

/** CPU id -> its times; the aggregate "cpu" line is skipped. */
export function parseProcStat(text: string): Map<number, CpuTimes> {
  const out = new Map<number, CpuTimes>();
  // The cpu lines come first (fs/proc/stat.c); what follows (intr: a count per IRQ, thousands
  // of numbers on a large machine) is not split into lines.
  const rest = /\n(?!cpu)/.exec(text);
  (rest === null ? text : text.slice(0, rest.index)).split('\n').forEach((line, i) => {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) return;
    const words = m[2]!.trim().split(/\s+/);
    if (Number(m[1]) >= MAX_CPUS)
      throw new SysfsParseError("CPU id beyond the kernel's limit", { line: i + 1, text: line });
    const v = words.map(Number);
    if (v.length < 4 || words.some((w) => !isSafeDecimal(w) || w.startsWith('-')))
      throw new SysfsParseError('cpuN line without 4 numbers', { line: i + 1, text: line });
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    out.set(Number(m[1]), { busy: total - v[3]! - (v[4] ?? 0), total });
  });
  return out;
}

/** Per-CPU times, or null when /proc/stat is absent. */
export function readProcStat(root: SysRoot): Map<number, CpuTimes> | null {
  return readParsed(root, 'proc/stat', parseProcStat);
}
