// What doctor calls a large process. A fixed size alone means nothing on a small machine: on a
// 1 GiB lab guest no process reaches 1 GiB, and a 140 MiB process with 15% locality went
// unreported. So a size is a fixed amount or a share of the machine's memory, whichever is
// less: 1 GiB on any machine of 20 GiB or more, 5% of the memory below that. Pure.
import { formatBytes } from './bytes.js';

/** The share of the machine's memory that makes a process large whatever the fixed size. */
export const LARGE_SHARE = 0.05;

/** Processes doctor samples (reads numa_maps of): numa_maps of every process would be slow. */
export const SAMPLED_BYTES = 256 * 2 ** 20;

/**
 * At most this many of them, the largest: a machine of thousands of big workers would cost a
 * read of each one's threads and numa_maps (the kernel walks its page tables), seconds where a
 * usual machine has a few hundred; what the rules say of it they say of its largest processes.
 */
export const MAX_SAMPLED = 256;

/** `fixed`, or LARGE_SHARE of the machine's memory when that is less (unknown memory: `fixed`). */
export function largeProcessBytes(fixed: number, machineBytes: number): number {
  return machineBytes > 0 ? Math.min(fixed, Math.floor(LARGE_SHARE * machineBytes)) : fixed;
}

/** How many of the sampled processes could be read: what every process rule says it checked. */
export interface ProcessCoverage {
  /** Sampled processes whose numa_maps could be read. */
  readonly read: number;
  /** Sampled processes (read or not). */
  readonly of: number;
  /** Processes of minBytes or more when more than MAX_SAMPLED are (only the largest were sampled). */
  readonly over?: number;
  /** The size from which processes were sampled. */
  readonly minBytes: number;
  /** Processes this user may not even look at (hidepid): their size is unknown. Absent: none. */
  readonly hidden?: number;
  /** Other users' processes are not even listed (/proc mounted hidepid=invisible): uncounted. */
  readonly invisible?: boolean;
}

/** "2 of 3 processes of 47.5 MiB or more". */
export function coverageText(c: ProcessCoverage, count: number): string {
  const of = `${count} of ${c.of} process${c.of === 1 ? '' : 'es'} of ${formatBytes(c.minBytes)} or more`;
  return c.over !== undefined && c.over > c.of ? `${of} (the ${c.of} largest of ${c.over})` : of;
}

/** "3 processes hidden from this user (...)": processes whose status was refused (hidepid). */
export function hiddenText(n: number): string {
  return `${n} process${n === 1 ? '' : 'es'} hidden from this user (/proc mounted with hidepid, or a security module: run as root)`;
}

/** Said where other users' processes are not listed at all, so nothing of them is counted. */
export const INVISIBLE_TEXT =
  "other users' processes are not listed to this user (/proc mounted with hidepid=invisible: run as root)";
