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

/**
 * Every thread of the unit on CPUs LIST: one awk reads the cgroup's thread ids and each thread's
 * status (a process per thread costs seconds on a busy or emulated host), names every thread that
 * is elsewhere and fails; a thread that ended meanwhile is skipped, a unit with none fails.
 */
/** The check block's line for a unit's threads: every one of them on CPUs LIST (THREADS_ON below). */
export const threadsCheck = (unit: string, cpuList: string) => `threads_on ${unit} ${cpuList}`;

/**
 * threads_on UNIT LIST, defined at the top of a check block that uses it: one awk reads the unit's
 * thread ids from its cgroup and each thread's status (a process per thread costs seconds on a busy
 * or emulated host), names every thread on other CPUs and fails; a thread that ended meanwhile is
 * skipped, a unit with none fails.
 */
export const THREADS_ON = [
  '# threads_on UNIT CPUS: fails, naming them, when any thread of UNIT is not on exactly CPUS.',
  'threads_on() {',
  `  awk -v unit="$1" -v want="$2" '`,
  '    { f = "/proc/" $1 "/status"',
  '      while ((getline l < f) > 0) if (l ~ /^Cpus_allowed_list:/) {',
  '        n++; split(l, a)',
  '        if (a[2] != want) { print unit ": thread " $1 " is on CPUs " a[2] ", not " want > "/dev/stderr"; bad = 1 }',
  '      }',
  '      close(f) }',
  '    END { if (!n) print unit ": no thread found" > "/dev/stderr"; exit bad || !n }',
  `  ' "/sys/fs/cgroup$(systemctl show -p ControlGroup --value "$1")/cgroup.threads"`,
  '}',
];

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
