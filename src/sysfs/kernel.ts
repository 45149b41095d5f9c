// Kernel settings that matter for NUMA: sysctls under /proc/sys, THP under
// /sys/kernel/mm/transparent_hugepage, the command line, virtualization hints.
// The numa_balancing_scan_* knobs moved from /proc/sys/kernel to
// /sys/kernel/debug/sched/numa_balancing/ in 5.13 (debugfs, root only); both are tried.
import { absent, present, type Fact } from '../model/fact.js';
import type { KernelFacts } from '../model/topology.js';
import { parseMeminfo } from './node_meminfo.js';
import { parseAt, parseBracketed, parseInteger } from './parse_util.js';
import { readFile } from './read.js';
import type { SysRoot } from './root.js';

function fact<T>(root: SysRoot, path: string, parse: (t: string) => T): Fact<T> {
  const r = readFile(root, path);
  return r.ok ? present(path, parseAt(path, r.text, parse)) : absent(path, r.reason);
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

export function readKernelFacts(root: SysRoot): KernelFacts {
  const thp = 'sys/kernel/mm/transparent_hugepage';
  return {
    cmdline: fact(root, 'proc/cmdline', (t) => t.trim()),
    numaBalancing: fact(root, 'proc/sys/kernel/numa_balancing', parseInteger),
    numaBalancingScan: {
      delayMs: firstOf(root, scan('delay_ms'), parseInteger),
      periodMinMs: firstOf(root, scan('period_min_ms'), parseInteger),
      periodMaxMs: firstOf(root, scan('period_max_ms'), parseInteger),
      sizeMb: firstOf(root, scan('size_mb'), parseInteger),
    },
    zoneReclaimMode: fact(root, 'proc/sys/vm/zone_reclaim_mode', parseInteger),
    swappiness: fact(root, 'proc/sys/vm/swappiness', parseInteger),
    thpEnabled: fact(root, `${thp}/enabled`, parseBracketed),
    thpDefrag: fact(root, `${thp}/defrag`, parseBracketed),
    hypervisor: fact(root, 'proc/cpuinfo', parseCpuinfoHypervisor),
    productName: fact(root, 'sys/class/dmi/id/product_name', (t) => t.trim()),
    kernelRelease: fact(root, 'proc/sys/kernel/osrelease', (t) => t.trim()),
    memTotalBytes: fact(root, 'proc/meminfo', (t) => parseMeminfo(t).MemTotal ?? 0),
  };
}
