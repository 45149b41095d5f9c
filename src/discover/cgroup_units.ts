// cgroup v2 leaves as units of placement (`numakit agent --unit cgroup`): a pod's container, a
// systemd service. Each pass walks the unified hierarchy and, for each leaf with processes,
// reads in steps, each only for the leaves that passed the one before:
//   memory.current                  >= the size bar (most leaves stop here)
//   cpuset.*.effective              prescreen (its path, its cpuset: pinned Kubernetes pods ...)
//   cpu.stat usage_usec             its CPU over the window (one file for all its processes)
//   cgroup.procs, each member's status and threads' stat (the one process sampler, all units'
//                                   members in one pass): select, and where its threads run
//   memory.numa_stat (anon)         its memory per node, for the units that pass
// A leaf seen for the first time only gets its baselines (its CPU needs a window).
import type { ProcessSample, ThreadUse } from '../model/stat.js';
import {
  readCgroupAnonByNode,
  readCgroupCpuUsec,
  readCgroupEffective,
  readCgroupMemoryCurrent,
  readCgroupProcs,
  listChildCgroups,
} from '../sysfs/cgroup_v2.js';
import type { SysRoot } from '../sysfs/root.js';
import { createSampler } from './process_sampler.js';

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

/** A unit that passed prescreen this pass, with what its own files said. */
interface Listed {
  readonly brief: UnitBrief;
  readonly usec: number;
  readonly pids: readonly number[];
}

export function createUnitSampler(root: SysRoot, opts: UnitSamplerOptions): UnitSampler {
  // Its members are read by the one process sampler (status, then their threads), all units'
  // members in one pass; memory comes from the unit's memory.numa_stat, not numa_maps.
  const procs = createSampler(root, { memory: 'none', threadUse: true });
  let prev = new Map<string, number>();
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
      const next = new Map<string, number>();
      const out: UnitSample[] = [];
      baselines = 0;
      listed = new Set(listLeafCgroups(root));
      const units: Listed[] = [];
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
        units.push({ brief, usec, pids });
      }
      const members = new Map<number, ProcessSample>();
      for (const m of procs.run({ nowMs, pids: units.flatMap((u) => u.pids) })) members.set(m.pid, m);
      for (const u of units) {
        const { cgroup } = u.brief;
        next.set(cgroup, u.usec);
        const before = prev.get(cgroup);
        if (before === undefined || prevAt === null) {
          baselines++;
          continue;
        }
        const m = u.pids.map((pid) => members.get(pid)).filter((x): x is ProcessSample => x !== undefined);
        const cpuBrief: UnitCpuBrief = {
          ...u.brief,
          cpuSeconds: Math.max(0, u.usec - before) / 1e6,
          windowSeconds: (nowMs - prevAt) / 1000,
          members: m.map((x) => ({ pid: x.pid, comm: x.comm, cpusAllowed: x.cpusAllowed })),
        };
        if (opts.select && !opts.select(cpuBrief)) continue;
        const anon = readCgroupAnonByNode(root, cgroup);
        if (anon === null) continue;
        out.push(unitSample(cpuBrief, anon, m));
      }
      prev = next;
      prevAt = nowMs;
      return out;
    },
  };
}

/** Where the unit's threads ran over the window (all its members together). */
function unitSample(b: UnitCpuBrief, anon: ReadonlyMap<number, number>, members: readonly ProcessSample[]): UnitSample {
  const cpuNodes: Record<string, number> = {};
  const use: ThreadUse[] = [];
  const last = new Set<number>();
  let threads = 0;
  for (const m of members) {
    for (const [n, s] of Object.entries(m.cpuNodes)) cpuNodes[n] = (cpuNodes[n] ?? 0) + s;
    use.push(...(m.threadUse ?? []));
    for (const n of m.lastNodes) last.add(n);
    threads += m.threadUse?.length ?? m.threads;
  }
  return { ...b, anonByNode: anon, cpuNodes, lastNodes: [...last].sort((a, c) => a - c), threadUse: use, threads };
}
