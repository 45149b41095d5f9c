// cgroup v2 leaves as units of placement (`numakit agent --unit cgroup`): a pod's container, a
// systemd service. Each pass walks the unified hierarchy and, for each leaf with processes,
// reads in steps, each only for the leaves that passed the one before:
//   memory.current                  >= the size bar (most leaves stop here)
//   cpuset.*.effective              prescreen (its path, its cpuset: pinned Kubernetes pods ...)
//   cpu.stat usage_usec             its CPU over the window (one file for all its processes)
//   cgroup.procs, each member's status and threads' stat: select, and where its threads run
//   memory.numa_stat (anon)         its memory per node, for the units that pass
// A leaf seen for the first time only gets its baselines (its CPU needs a window).
import type { ThreadUse } from '../model/stat.js';
import {
  readCgroupAnonByNode,
  readCgroupCpuUsec,
  readCgroupEffective,
  readCgroupMemoryCurrent,
  readCgroupProcs,
  listChildCgroups,
} from '../sysfs/cgroup_v2.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';
import { cpuSecondsByNode, readCpuNodes, readThreadTicks, threadUseOf, type ThreadTicks } from './processes.js';

/** What a unit's prescreen sees: its path, size and cpuset. */
export interface UnitBrief {
  readonly cgroup: string;
  readonly memoryBytes: number;
  /** cpuset.cpus.effective / cpuset.mems.effective; null without the cpuset controller. */
  readonly cpus: readonly number[] | null;
  readonly mems: readonly number[] | null;
}

export interface UnitMember {
  readonly pid: number;
  readonly comm: string;
  readonly cpusAllowed: readonly number[] | null;
}

/** A unit with its CPU over the window (select sees this). */
export interface UnitCpuBrief extends UnitBrief {
  readonly cpuSeconds: number;
  readonly windowSeconds: number;
  readonly members: readonly UnitMember[];
}

export interface UnitSample extends UnitCpuBrief {
  /** Anonymous memory per node (memory.numa_stat), bytes. */
  readonly anonByNode: ReadonlyMap<number, number>;
  readonly cpuNodes: Readonly<Record<string, number>>;
  readonly lastNodes: readonly number[];
  readonly threadUse: readonly ThreadUse[];
  readonly threads: number;
}

export interface UnitSamplerOptions {
  readonly minBytes: number;
  readonly prescreen?: (u: UnitBrief) => boolean;
  readonly select?: (u: UnitCpuBrief) => boolean;
}

export interface UnitSampler {
  sample(nowMs: number): UnitSample[];
  /** Units the last sample only took a baseline of. */
  readonly baselines: number;
  /** Every leaf the last sample listed. */
  readonly listed: ReadonlySet<string>;
}

/** Leaves of the hierarchy (cgroups with no child cgroup), the root left out. */
export function listLeafCgroups(root: SysRoot): string[] {
  const out: string[] = [];
  const walk = (cg: string) => {
    const kids = listChildCgroups(root, cg) ?? [];
    if (kids.length === 0 && cg !== '/') out.push(cg);
    for (const k of kids) walk(k);
  };
  walk('/');
  return out;
}

interface Seen {
  readonly usec: number;
  /** pid -> its threads' ticks at the last pass. */
  readonly ticks: ReadonlyMap<number, ReadonlyMap<number, ThreadTicks>>;
}

function members(
  root: SysRoot,
  pids: readonly number[],
): { members: UnitMember[]; ticks: Map<number, Map<number, ThreadTicks>> } {
  const out: UnitMember[] = [];
  const ticks = new Map<number, Map<number, ThreadTicks>>();
  for (const pid of pids) {
    const st = readProcStatus(root, pid);
    const t = st === null ? null : readThreadTicks(root, pid);
    if (st === null || t === null) continue; // exited meanwhile
    out.push({ pid, comm: st.name, cpusAllowed: st.cpusAllowed });
    ticks.set(pid, t);
  }
  return { members: out, ticks };
}

export function createUnitSampler(root: SysRoot, opts: UnitSamplerOptions): UnitSampler {
  const cpuNode = readCpuNodes(root);
  let prev = new Map<string, Seen>();
  let prevAt: number | null = null;
  let baselines = 0;
  let listed = new Set<string>();
  return {
    get baselines() {
      return baselines;
    },
    get listed() {
      return listed;
    },
    sample(nowMs) {
      const next = new Map<string, Seen>();
      const out: UnitSample[] = [];
      baselines = 0;
      listed = new Set(listLeafCgroups(root));
      for (const cgroup of listed) {
        const memoryBytes = readCgroupMemoryCurrent(root, cgroup);
        if (memoryBytes === null || memoryBytes < opts.minBytes) continue;
        const brief: UnitBrief = {
          cgroup,
          memoryBytes,
          cpus: readCgroupEffective(root, cgroup, 'cpus'),
          mems: readCgroupEffective(root, cgroup, 'mems'),
        };
        if (opts.prescreen && !opts.prescreen(brief)) continue;
        const usec = readCgroupCpuUsec(root, cgroup);
        const pids = readCgroupProcs(root, cgroup);
        if (usec === null || pids === null || pids.length === 0) continue;
        const m = members(root, pids);
        next.set(cgroup, { usec, ticks: m.ticks });
        const before = prev.get(cgroup);
        if (before === undefined || prevAt === null) {
          baselines++;
          continue;
        }
        const cpuBrief: UnitCpuBrief = {
          ...brief,
          cpuSeconds: Math.max(0, usec - before.usec) / 1e6,
          windowSeconds: (nowMs - prevAt) / 1000,
          members: m.members,
        };
        if (opts.select && !opts.select(cpuBrief)) continue;
        const anon = readCgroupAnonByNode(root, cgroup);
        if (anon === null) continue;
        out.push(unitSample(cpuBrief, anon, before, m.ticks, cpuNode));
      }
      prev = next;
      prevAt = nowMs;
      return out;
    },
  };
}

/** Where the unit's threads ran over the window (all its members together). */
function unitSample(
  b: UnitCpuBrief,
  anon: ReadonlyMap<number, number>,
  before: Seen,
  ticks: ReadonlyMap<number, ReadonlyMap<number, ThreadTicks>>,
  cpuNode: ReadonlyMap<number, number>,
): UnitSample {
  const cpuNodes: Record<string, number> = {};
  const use: ThreadUse[] = [];
  const last = new Set<number>();
  let threads = 0;
  for (const [pid, t1] of ticks) {
    const t0 = before.ticks.get(pid) ?? new Map<number, ThreadTicks>();
    for (const [n, s] of Object.entries(cpuSecondsByNode(t0, t1, { cpuNode }))) cpuNodes[n] = (cpuNodes[n] ?? 0) + s;
    use.push(...threadUseOf(t0, t1, cpuNode));
    for (const t of t1.values()) {
      const n = cpuNode.get(t.processor);
      if (n !== undefined) last.add(n);
    }
    threads += t1.size;
  }
  return { ...b, anonByNode: anon, cpuNodes, lastNodes: [...last].sort((a, c) => a - c), threadUse: use, threads };
}
