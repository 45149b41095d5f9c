// SysRoot -> the large processes (>= 1 GiB resident, or 5% of a smaller machine) and where they may run, from
// /proc/PID/status, plus the memory policy of the largest one from its numa_maps (numactl
// --membind, systemd NUMAPolicy= or numakit run bind memory without touching the cpuset; only
// one numa_maps is read: the kernel walks the page tables for it). doctor and apply decide a
// profile's placement from the same list, so they cannot disagree about it.
import { gathered, missing, type Gathered } from '../model/doctor_input.js';
import { isRefused } from '../model/fact.js';
import { LARGE_PROCESS_BYTES, type MemPolicyShare, type PlacedProcess } from '../model/placement.js';
import { commAsName, listPids } from '../sysfs/proc_list.js';
import { ProcStatFiles, type StatFields } from '../sysfs/proc_stat_files.js';
import { readPageSize } from './page_size.js';
import { numaMapsPath, policyAsPrinted, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import { type ProcStatus, readProcStatusFact } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

/** What one walk of /proc read: how many processes it listed, each one's name, and the status of the large ones. */
export interface ProcessWalk {
  readonly listed: number;
  /** Every process still there, with its name as status's Name shows it (comm, escaped). */
  readonly names: readonly { readonly pid: number; readonly name: string }[];
  /** Each process of the walk's size or more, with its status (exact size, where it may run). */
  readonly large: readonly { readonly pid: number; readonly status: ProcStatus }[];
  /** Processes whose stat this user was refused (/proc mounted hidepid=noaccess): size unknown. */
  readonly hidden: number;
  /** Processes of the walk's size or more (`large` holds the `most` largest of them). */
  readonly over: number;
}

/**
 * One walk of /proc: each process's stat (its name and resident pages), and status only for those
 * of `minBytes` or more, the `most` largest of them by stat (stat's resident pages and status's
 * VmRSS are the same count): a machine of thousands of big workers costs what a usual one does. doctor takes the names, the sizes and where large processes may run from
 * it. status is 57 lines the kernel formats (a stat read costs about two thirds of a status read
 * on a live kernel, and a fifth of its bytes): 10,000 of them were a third of doctor's walk. A
 * process without a stat file (a snapshot made without one) is read from its status.
 */
export function walkProcesses(root: SysRoot, minBytes: number, most = Number.POSITIVE_INFINITY): ProcessWalk {
  const pids = listPids(root);
  const pageSize = readPageSize(root);
  const files = new ProcStatFiles(root);
  const stat: StatFields = { cpuTicks: 0, startTicks: 0, threads: 0, rssPages: 0, vsizeBytes: 0, faults: 0 };
  const names: { pid: number; name: string }[] = [];
  const large: { pid: number; status: ProcStatus }[] = [];
  const big: { pid: number; bytes: number }[] = [];
  let hidden = 0;
  let over = 0;
  try {
    for (const pid of pids) {
      const r = files.readNamed(pid, stat);
      if (r.read === 'refused') {
        hidden++;
        continue;
      }
      if (r.read === 'read') {
        names.push({ pid, name: commAsName(r.comm!) });
        if (stat.rssPages * pageSize >= minBytes) big.push({ pid, bytes: stat.rssPages * pageSize });
        continue;
      }
      const fact = readProcStatusFact(root, pid);
      if (fact.value === null) {
        if (isRefused(fact)) hidden++;
        continue; // gone since it was listed
      }
      // No stat file (a snapshot made without one): status says its name and size.
      names.push({ pid, name: fact.value.name });
      if (fact.value.rssBytes >= minBytes) {
        over++;
        large.push({ pid, status: fact.value });
      }
    }
  } finally {
    files.closeAll();
  }
  over += big.length;
  hidden += readLargest(root, big, { minBytes, most: most - large.length, into: large });
  large.sort((a, b) => a.pid - b.pid);
  return { listed: pids.length, names, large, hidden, over };
}

/**
 * The status of the `most` largest of `big` (by stat), those still of `minBytes` or more pushed
 * `into`; how many were refused (hidepid).
 */
function readLargest(
  root: SysRoot,
  big: { pid: number; bytes: number }[],
  o: { minBytes: number; most: number; into: { pid: number; status: ProcStatus }[] },
): number {
  let refused = 0;
  big.sort((a, b) => b.bytes - a.bytes || a.pid - b.pid);
  for (const { pid } of big.slice(0, Math.max(0, o.most))) {
    const fact = readProcStatusFact(root, pid);
    if (fact.value === null) {
      if (isRefused(fact)) refused++;
      continue; // gone since its stat was read
    }
    if (fact.value.rssBytes >= o.minBytes) o.into.push({ pid, status: fact.value });
  }
  return refused;
}

/** `minBytes`: what "large" is on this machine (model/large_process.ts: 1 GiB, or 5% of a smaller machine). */
export function readPlacedProcesses(
  root: SysRoot,
  minBytes = LARGE_PROCESS_BYTES,
  walk: ProcessWalk = walkProcesses(root, minBytes),
): Gathered<PlacedProcess[]> {
  if (walk.listed === 0)
    return missing('no processes under proc/ (a snapshot taken without --processes, or a container)');
  const out: PlacedProcess[] = [];
  for (const { pid, status: s } of walk.large) {
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
