// SysRoot -> the large processes (>= 1 GiB resident, or 5% of a smaller machine) and where they may run, from
// /proc/PID/status, plus the memory policy of the largest one from its numa_maps (numactl
// --membind, systemd NUMAPolicy= or numakit run bind memory without touching the cpuset; only
// one numa_maps is read: the kernel walks the page tables for it). doctor and apply decide a
// profile's placement from the same list, so they cannot disagree about it.
import { gathered, missing, type Gathered } from '../model/doctor_input.js';
import { isRefused } from '../model/fact.js';
import { LARGE_PROCESS_BYTES, type MemPolicyShare, type PlacedProcess } from '../model/placement.js';
import { listPids } from '../sysfs/proc_list.js';
import { numaMapsPath, policyAsPrinted, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import { type ProcStatus, readProcStatusFact } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

/** What one walk of /proc read: how many processes it listed, and the status of each still there. */
export interface ProcessWalk {
  readonly listed: number;
  readonly statuses: readonly { readonly pid: number; readonly status: ProcStatus }[];
  /** Processes whose status this user was refused (/proc mounted hidepid=noaccess): size unknown. */
  readonly hidden: number;
}

/**
 * One walk of /proc: each process's status, read once. doctor takes the names, the sizes and
 * where large processes may run from it (it walked /proc three times: comm, then status twice).
 */
export function walkProcesses(root: SysRoot): ProcessWalk {
  const pids = listPids(root);
  const statuses: { pid: number; status: ProcStatus }[] = [];
  let hidden = 0;
  for (const pid of pids) {
    const fact = readProcStatusFact(root, pid);
    if (fact.value !== null) statuses.push({ pid, status: fact.value });
    else if (isRefused(fact)) hidden++;
  }
  return { listed: pids.length, statuses, hidden };
}

/** `minBytes`: what "large" is on this machine (model/large_process.ts: 1 GiB, or 5% of a smaller machine). */
export function readPlacedProcesses(
  root: SysRoot,
  minBytes = LARGE_PROCESS_BYTES,
  walk: ProcessWalk = walkProcesses(root),
): Gathered<PlacedProcess[]> {
  if (walk.listed === 0)
    return missing('no processes under proc/ (a snapshot taken without --processes, or a container)');
  const out: PlacedProcess[] = [];
  for (const { pid, status: s } of walk.statuses) {
    if (s.rssBytes < minBytes) continue;
    out.push({ pid, comm: s.name, totalBytes: s.rssBytes, cpusAllowed: s.cpusAllowed, memsAllowed: s.memsAllowed });
  }
  out.sort((a, b) => b.totalBytes - a.totalBytes);
  if (out[0] !== undefined) out[0] = { ...out[0], memPolicy: readMemPolicy(root, out[0].pid) };
  return gathered(out, 'proc/*/status, numa_maps of the largest');
}

/** The policy holding most of the process's resident memory, or null (gone, not readable, unparseable, no pages). */
export function readMemPolicy(root: SysRoot, pid: number): MemPolicyShare | null {
  const r = readNumaMapsText(root, pid);
  if (!r.ok) return null;
  const kb = parseOrWarn(root, numaMapsPath(pid), r.text, parseMemPolicies);
  return kb === null ? null : dominant(kb);
}

/** numa_maps text -> resident kB per policy as printed. */
export function parseMemPolicies(text: string): Map<string, number> {
  const kb = new Map<string, number>();
  scanNumaMaps(text, (m) => {
    let pages = 0;
    for (let i = 1; i < m.pairs.length; i += 2) pages += m.pairs[i]!;
    if (pages === 0) return;
    const policy = policyAsPrinted(m);
    kb.set(policy, (kb.get(policy) ?? 0) + pages * (m.pageKb ?? 4));
  });
  return kb;
}

function dominant(kb: ReadonlyMap<string, number>): MemPolicyShare | null {
  const total = [...kb.values()].reduce((a, v) => a + v, 0);
  const top = [...kb].sort((a, b) => b[1] - a[1])[0];
  return top === undefined || total === 0 ? null : { text: top[0], share: top[1] / total };
}
