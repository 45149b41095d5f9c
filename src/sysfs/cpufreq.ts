// /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor. Absent in most VMs and containers
// (no cpufreq driver), and for offline CPUs.
import { SysfsParseError } from '../model/errors.js';
import { CPU_DIR } from './cpu_topology.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

/** One governor name ("performance", "powersave", "schedutil" ...). */
export function parseGovernor(text: string): string {
  const s = text.trim();
  if (!/^[a-z][a-z0-9_-]*$/.test(s)) throw new SysfsParseError('not a cpufreq governor name', { text: s });
  return s;
}

/** Governor per CPU for the CPUs that have one; an empty map when cpufreq is absent. */
export function readGovernors(root: SysRoot, cpus: readonly number[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const cpu of cpus) {
    const path = `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_governor`;
    const g = readParsed(root, path, parseGovernor);
    if (g !== null) out.set(cpu, g);
  }
  return out;
}
