// /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor. Absent in most VMs and containers
// (no cpufreq driver), and for offline CPUs.
//
// cpuN/cpufreq is a link to the CPU's policy, cpufreq/policyM (Documentation/admin-guide/pm/
// cpufreq.rst, "Policy Interface in sysfs"): one policy may govern several CPUs (affected_cpus).
// The policies are read where the kernel lists them, not each CPU's link: a policy named policyN
// was created for CPU N, which stays in it (related_cpus does not change while it exists), so an
// online CPU N with a policyN is governed by policyN; the CPUs of a shared policy are named by
// its affected_cpus. cpufreq/ without a policy is the core without a driver (a VM): no governor.
// A tree without cpufreq/ (a kernel without CONFIG_CPU_FREQ, an older capture) is read per CPU.
import { parseCpuList } from '../model/cpuset.js';
import { SysfsParseError } from '../model/errors.js';
import { CPU_DIR } from './cpu_topology.js';
import { listDir } from './read.js';
import { readParsed } from './read_parsed.js';
import type { SysRoot } from './root.js';

const POLICIES = `${CPU_DIR}/cpufreq`;

/** One governor name ("performance", "powersave", "schedutil" ...). */
export function parseGovernor(text: string): string {
  const s = text.trim();
  if (!/^[a-z][a-z0-9_-]*$/.test(s)) throw new SysfsParseError('not a cpufreq governor name', { text: s });
  return s;
}

/** Governor per CPU for the CPUs of `cpus` (online ones) that have one; an empty map when cpufreq is absent. */
export function readGovernors(root: SysRoot, cpus: readonly number[]): Map<number, string> {
  const listed = listDir(root, POLICIES);
  if (listed === null) return perCpu(root, cpus);
  const policies = listed.filter((n) => /^policy\d+$/.test(n)).map((n) => Number(n.slice('policy'.length)));
  if (policies.length === 0) return new Map();
  const own = new Set(policies);
  const out = new Map<number, string>();
  if (cpus.every((c) => own.has(c))) {
    // A policy a CPU (intel_pstate, amd-pstate): each CPU's own, one read.
    for (const cpu of cpus) {
      const g = readParsed(root, `${POLICIES}/policy${cpu}/scaling_governor`, parseGovernor);
      if (g !== null) out.set(cpu, g);
    }
    return out;
  }
  const wanted = new Set(cpus);
  for (const p of policies.sort((a, b) => a - b)) {
    const affected = readParsed(root, `${POLICIES}/policy${p}/affected_cpus`, parseAffected);
    const mine = (affected ?? [p]).filter((c) => wanted.has(c) && !out.has(c));
    if (mine.length === 0) continue;
    const g = readParsed(root, `${POLICIES}/policy${p}/scaling_governor`, parseGovernor);
    if (g !== null) for (const c of mine) out.set(c, g);
  }
  return out;
}

/** affected_cpus: CPU numbers separated by spaces ("0 1 2 3"), or a cpulist. */
export function parseAffected(text: string): number[] {
  return parseCpuList(text.trim().split(/\s+/).join(','));
}

function perCpu(root: SysRoot, cpus: readonly number[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const cpu of cpus) {
    const g = readParsed(root, `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_governor`, parseGovernor);
    if (g !== null) out.set(cpu, g);
  }
  return out;
}
