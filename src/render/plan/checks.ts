// The check block's lines: shell that fails (with a line saying what) when a running unit is not
// as the plan put it. Threads are read from the unit's cgroup (cgroup v2 cgroup.threads: every
// thread of every process the unit started), the memory policy from the main process's numa_maps
// (the kernel shows the task's policy on every mapping without one of its own, as
// "bind:0", "prefer:1" or "interleave:0-1": mpol_to_str in mm/mempolicy.c).
import { formatCpuList, parseCpuList } from '../../model/cpuset.js';

/** /proc/PID of a unit's main process, quoted for the shell. */
export const procOf = (unit: string, file: string) => `"/proc/$(systemctl show -p MainPID --value ${unit})/${file}"`;
const fail = (what: string) => `{ echo '${what.replace(/'/g, '')}' >&2; exit 1; }`;

export const activeCheck = (unit: string) => `systemctl is-active --quiet ${unit} || ${fail(`${unit} is not active`)}`;

export function threadsCheck(unit: string, cpuList: string): string {
  return `while read -r t; do [ ! -e "/proc/$t/status" ] || grep -Eq '^Cpus_allowed_list:[[:space:]]+${cpuList}$' "/proc/$t/status" || ${fail(`${unit}: a thread is not on CPUs ${cpuList}`)}; done < "/sys/fs/cgroup$(systemctl show -p ControlGroup --value ${unit})/cgroup.threads"`;
}

/** numa_maps' word for a policy: bind:0, prefer:0, interleave:0-1. */
export function numaMapsPolicy(policy: 'bind' | 'preferred' | 'interleave', mask: string): string {
  const nodes = formatCpuList(parseCpuList(mask));
  return `${policy === 'preferred' ? 'prefer' : policy}:${nodes}`;
}

export function policyCheck(unit: string, policy: 'bind' | 'preferred' | 'interleave', mask: string): string {
  const word = numaMapsPolicy(policy, mask);
  return `grep -q ' ${word} ' ${procOf(unit, 'numa_maps')} || ${fail(`${unit}: memory policy is not ${word}`)}`;
}

/** A setting as the server reports it, compared with the planned value. */
export function valueCheck(what: string, command: string, want: string): string {
  return `[ "$(${command})" = '${want}' ] || ${fail(`${what} is not ${want}`)}`;
}

/** Java's and the servers' size syntax for a size in GiB: whole GiB as N + g, else whole MiB as N + m. */
export function sizeWord(gib: number, g: string, m: string): string {
  return Number.isInteger(gib) ? `${gib}${g}` : `${Math.round(gib * 1024)}${m}`;
}
