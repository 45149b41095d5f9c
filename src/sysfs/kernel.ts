// Kernel settings that matter for NUMA: sysctls under /proc/sys, THP under
// /sys/kernel/mm/transparent_hugepage, the command line, virtualization hints.
// The numa_balancing_scan_* knobs moved from /proc/sys/kernel to
// /sys/kernel/debug/sched/numa_balancing/ in 5.13 (debugfs, root only); both are tried.
// Each sysctl is range-checked with the kernel's own bounds (kernel/sysctl.c, mm/vmscan.c): a
// value outside them (swappiness -1) is a warning and an absent fact, never judged as if valid.
import { SysfsParseError } from '../model/errors.js';
import { absent, type Fact } from '../model/fact.js';
import type { KernelFacts } from '../model/topology.js';
import { numberOf } from './name_values.js';
import { parseMeminfo } from './node_meminfo.js';
import { integerIn, parseBracketed, parseCount } from './parse_util.js';
import { readFact } from './read_parsed.js';
import type { SysRoot } from './root.js';

const INT_MAX = 2 ** 31 - 1;
/** COMMAND_LINE_SIZE is 2048 to 4096 bytes on every architecture (bootconfig adds a little). */
const MAX_CMDLINE = 64 * 1024;

function fact<T>(root: SysRoot, path: string, parse: (t: string) => T): Fact<T> {
  return readFact(root, path, parse);
}

/** A line of text, the whole file trimmed; refused past `max` characters. */
function textUpTo(max: number): (t: string) => string {
  return (t) => {
    if (t.length > max) throw new SysfsParseError(`longer than ${max} characters`);
    return t.trim();
  };
}

export function parseMemTotal(text: string): number {
  const total = numberOf(parseMeminfo(text), 'MemTotal');
  if (total === undefined) throw new SysfsParseError('meminfo has no MemTotal line');
  return total;
}

/** First present fact among candidate paths; the last absence otherwise. */
function firstOf<T>(root: SysRoot, paths: string[], parse: (t: string) => T): Fact<T> {
  let last: Fact<T> = absent(paths[0]!, 'missing');
  for (const p of paths) {
    last = fact(root, p, parse);
    if (last.value !== null) return last;
  }
  return last;
}

const scan = (name: string) => [
  `proc/sys/kernel/numa_balancing_scan_${name}`,
  `sys/kernel/debug/sched/numa_balancing/scan_${name}`,
];

export function parseCpuinfoHypervisor(text: string): boolean {
  return /^flags\s*:.*\bhypervisor\b/m.test(text);
}

/** "model name" of each "processor" in /proc/cpuinfo (x86; absent on arm64, which names none). */
export function parseCpuinfoModels(text: string): Record<string, string> {
  const models: Record<string, string> = {};
  for (const block of text.split(/\n\s*\n/)) {
    const cpu = /^processor\s*:\s*(\d+)/m.exec(block)?.[1];
    const model = /^model name\s*:\s*(.+?)\s*$/m.exec(block)?.[1];
    if (cpu !== undefined && model !== undefined) models[cpu] = model.replace(/\s+/g, ' ');
  }
  return models;
}

/** One read of /proc/cpuinfo for every fact taken from it (it is slow to generate on large x86 machines). */
function cpuinfoFacts(root: SysRoot): { hypervisor: Fact<boolean>; cpuModels: Fact<Record<string, string>> } {
  const f = fact(root, 'proc/cpuinfo', (t) => ({
    hypervisor: parseCpuinfoHypervisor(t),
    models: parseCpuinfoModels(t),
  }));
  if (f.value === null)
    return { hypervisor: f as unknown as Fact<boolean>, cpuModels: f as unknown as Fact<Record<string, string>> };
  return { hypervisor: { ...f, value: f.value.hypervisor }, cpuModels: { ...f, value: f.value.models } };
}

export function readKernelFacts(root: SysRoot): KernelFacts {
  const thp = 'sys/kernel/mm/transparent_hugepage';
  return {
    cmdline: fact(root, 'proc/cmdline', textUpTo(MAX_CMDLINE)),
    // 0 off, 1 NUMA_BALANCING_NORMAL, 2 NUMA_BALANCING_MEMORY_TIERING, 3 both
    numaBalancing: fact(root, 'proc/sys/kernel/numa_balancing', integerIn(0, 3)),
    numaBalancingScan: {
      delayMs: firstOf(root, scan('delay_ms'), parseCount),
      periodMinMs: firstOf(root, scan('period_min_ms'), parseCount),
      periodMaxMs: firstOf(root, scan('period_max_ms'), parseCount),
      sizeMb: firstOf(root, scan('size_mb'), parseCount),
    },
    // per target node, in MB/s; 65536 (no limit in practice) by default
    promoteRateLimitMBps: fact(root, 'proc/sys/kernel/numa_balancing_promote_rate_limit_MBps', parseCount),
    // a bitmask (1 reclaim, 2 write dirty pages, 4 swap); the kernel takes any int >= 0
    zoneReclaimMode: fact(root, 'proc/sys/vm/zone_reclaim_mode', integerIn(0, INT_MAX)),
    // 0..200 since 5.8 (0..100 before)
    swappiness: fact(root, 'proc/sys/vm/swappiness', integerIn(0, 200)),
    thpEnabled: fact(root, `${thp}/enabled`, parseBracketed),
    thpDefrag: fact(root, `${thp}/defrag`, parseBracketed),
    ...cpuinfoFacts(root),
    productName: fact(root, 'sys/class/dmi/id/product_name', textUpTo(256)),
    kernelRelease: fact(root, 'proc/sys/kernel/osrelease', textUpTo(256)),
    memTotalBytes: fact(root, 'proc/meminfo', parseMemTotal),
  };
}
