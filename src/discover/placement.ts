// SysRoot -> the large processes (>= 1 GiB resident, or 5% of a smaller machine) and where they may run, from
// /proc/PID/status, plus the memory policy of the largest one from its numa_maps (numactl
// --membind, systemd NUMAPolicy= or numakit run bind memory without touching the cpuset; only
// one numa_maps is read: the kernel walks the page tables for it). doctor and apply decide a
// profile's placement from the same list, so they cannot disagree about it.
import { gathered, missing, type Gathered } from '../model/doctor_input.js';
import { LARGE_PROCESS_BYTES, type MemPolicyShare, type PlacedProcess } from '../model/placement.js';
import type { ProcessSample } from '../model/stat.js';
import { readPageSize } from './page_size.js';
import { createSampler } from './process_sampler.js';
import { numaMapsPath, policyAsPrinted, readNumaMapsText, scanNumaMaps } from '../sysfs/proc_numa_maps.js';
import { parseOrWarn } from '../sysfs/read_parsed.js';
import type { ProcStatus } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';

/** What one pass of the process sampler read of the large processes (and, when asked, every name). */
export interface LargeProcesses {
  /** Processes /proc listed. */
  readonly listed: number;
  /** Every process whose stat was read (of the names asked for), with its name as status's Name shows it (comm, escaped); [] unless asked. */
  readonly names: readonly { readonly pid: number; readonly name: string }[];
  /** The `most` largest of `minBytes` or more (by stat, then status's exact size), with their status, in pid order. */
  readonly large: readonly { readonly pid: number; readonly status: ProcStatus }[];
  /** Their samples (threads, numa_maps with bytes per policy; no cmdline) when asked, in pid order; else []. */
  readonly samples: readonly ProcessSample[];
  /** Processes whose stat or status this user was refused (/proc mounted hidepid=noaccess): size unknown. */
  readonly hidden: number;
  /** Processes of `minBytes` or more by stat (`large` holds the `most` largest of them). */
  readonly over: number;
}

export interface LargeOptions {
  /** What "large" is. */
  readonly minBytes: number;
  /** At most this many, the largest (default all). */
  readonly most?: number;
  /** Keep every process's name, or those of the processes of these names (doctor's daemons). */
  readonly names?: boolean | ReadonlySet<string>;
  /** Sample them too: their threads' CPU per node and numa_maps (doctor); else only their status is read. */
  readonly sample?: boolean;
}

/**
 * One pass of the process sampler (discover/process_sampler.ts, the one walker of /proc) over the
 * large processes: stage 1 reads every stat (and every name, when asked); status (57 lines the
 * kernel formats) is read only for the `most` largest over the bar, largest first, and their
 * threads and numa_maps only when asked: a machine of thousands of big workers costs what a usual
 * one does.
 */
export function readLargeProcesses(root: SysRoot, o: LargeOptions): LargeProcesses {
  const large: { pid: number; status: ProcStatus }[] = [];
  const most = o.most ?? Number.POSITIVE_INFINITY;
  const sampler = createSampler(root, {
    screen: { minRssBytes: o.minBytes, pageSize: readPageSize(root), idleBelow: 0 },
    ...(o.names === undefined || o.names === false ? {} : { names: o.names }),
    // Its exact size is status's VmRSS (stat's resident pages, read a moment before).
    prescreen: ({ pid, status }) => {
      if (status.rssBytes < o.minBytes) return false;
      large.push({ pid, status });
      return o.sample === true;
    },
    // No rule of doctor's reads a command line: its samples' cmdline is ''.
    cmdline: false,
    onePass: true,
    ...(o.sample === true ? { memory: { numaMaps: { policies: true } } } : {}),
  });
  let visited = 0;
  try {
    const samples = [...sampler.run({ nowMs: 0, largestFirst: { stop: () => visited++ >= most } })];
    const { listed, names, counts } = sampler;
    return {
      listed: listed.size,
      names,
      large: large.sort((a, b) => a.pid - b.pid),
      samples: samples.sort((a, b) => a.pid - b.pid),
      hidden: counts.hidden,
      over: counts.kept,
    };
  } finally {
    sampler.close();
  }
}

/** `minBytes`: what "large" is on this machine (model/large_process.ts: 1 GiB, or 5% of a smaller machine). */
export function readPlacedProcesses(
  root: SysRoot,
  minBytes = LARGE_PROCESS_BYTES,
  read: LargeProcesses = readLargeProcesses(root, { minBytes }),
): Gathered<PlacedProcess[]> {
  if (read.listed === 0)
    return missing('no processes under proc/ (a snapshot taken without --processes, or a container)');
  const out: PlacedProcess[] = [];
  for (const { pid, status: s } of read.large) {
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
