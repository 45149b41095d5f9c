// The kernel's limits on ids, and the text quirks real kernels emit. Pure.
//
// CPU ids: CONFIG_NR_CPUS is at most 8192 on every architecture (x86 MAXSMP, powerpc, arm64
// 4096), so an id is below 8192. Node ids: NODES_SHIFT is at most 10 (MAX_NUMNODES 1024).
// A list or count beyond these is not a machine, it is a corrupt file: it is refused, never
// walked (a list "0-1048576" or a node "N4294967294=" once cost minutes or all memory).

/** Largest number of CPU ids a kernel can have (CONFIG_NR_CPUS maximum). */
export const MAX_CPUS = 8192;
/** Largest number of node ids (MAX_NUMNODES with NODES_SHIFT 10). */
export const MAX_NODES = 1024;

/** True when t is a decimal integer that a JS number holds exactly (|v| <= 2^53 - 1). */
export function isSafeDecimal(t: string): boolean {
  return /^-?\d+$/.test(t) && Number.isSafeInteger(Number(t));
}

/**
 * Text as parsers want it: CRLF as LF, and trailing NULs and whitespace gone. Some kernels
 * print "0-31\n\0" (a NUL after the newline of a list attribute); files copied through other
 * systems may carry CRLF. Leading whitespace is kept: it is meaningful in /proc/interrupts.
 */
export function cleanText(text: string): string {
  // Trailing characters are dropped one by one from the end: the regex /[\s\0]+$/ retries at
  // every whitespace character of the text, quadratic in the runs of padding of files such as
  // /proc/interrupts (about 1.5 ms of CPU in doctor on a 64-CPU example).
  let end = text.length;
  while (end > 0 && TRAILING.test(text[end - 1]!)) end--;
  const kept = end === text.length ? text : text.slice(0, end);
  return kept.includes('\r') ? kept.replace(/\r\n?/g, '\n') : kept;
}

const TRAILING = /^[\s\0]$/;
