// --unit cgroup: the candidates of a pass are cgroup v2 leaves (discover/cgroup_units.ts), each
// seen by the policy as one process would be: its memory per node from memory.numa_stat, its CPU
// from cpu.stat, where its threads run from its processes' threads, the CPUs and nodes it may use
// from its cpuset. Left alone: the agent's own cgroup and init's, --exclude / --include on the
// cgroup's path, Kubernetes Guaranteed pods pinned by the kubelet (never), a process in it whose
// CPU affinity someone else set (unless --override-pins), units cooling down.
import {
  createUnitSampler,
  type UnitBrief,
  type UnitCpuBrief,
  type UnitSample,
  type UnitSampler,
} from '../discover/cgroup_units.js';
import { sameSet } from '../policy/agent/candidates.js';
import { cgroupPin } from '../policy/agent/cgroup_unit.js';
import { skipText } from '../policy/agent/skips.js';
import type { ProcessView, SkipReason } from '../policy/agent/types.js';
import { readCgroupCpuMax } from '../sysfs/cgroup_v2.js';
import type { SysRoot } from '../sysfs/root.js';
import type { AgentConfig } from './config.js';

export interface UnitContext {
  readonly root: SysRoot;
  readonly cfg: AgentConfig;
  readonly selfPid: number;
  readonly now: () => number;
  readonly allCpus: () => readonly number[];
  readonly allNodes: () => readonly number[];
  /** CPUs the agent last set on a process (its journal), or null. */
  readonly agentCpus: (pid: number) => readonly number[] | null;
  readonly cooldownUntil: ReadonlyMap<string, number>;
  /** A unit left alone, for the log (once per reason). */
  readonly note: (cgroup: string, pid: number, comm: string, skip: SkipReason, reason: string) => void;
}

const matches = (res: readonly RegExp[], cgroup: string) => res.some((re) => re.test(cgroup));

export class UnitSource {
  private readonly sampler: UnitSampler;

  constructor(private readonly c: UnitContext) {
    this.sampler = createUnitSampler(c.root, {
      minBytes: c.cfg.minRssBytes,
      prescreen: (u) => this.prescreen(u),
      select: (u) => this.select(u),
    });
  }

  get baselines(): number {
    return this.sampler.baselines;
  }

  /** Every leaf listed at the last pass. */
  get seen(): ReadonlySet<string> {
    return this.sampler.listed;
  }

  private prescreen(u: UnitBrief): boolean {
    const { cfg } = this.c;
    const pin = cgroupPin(u.cgroup, u.cpus, u.mems, {
      cpus: this.c.allCpus(),
      nodes: this.c.allNodes(),
      cpuLimit: () => readCgroupCpuMax(this.c.root, u.cgroup),
    });
    const why: [SkipReason, string] | null =
      pin !== null
        ? ['pinned-cgroup', pin]
        : matches(cfg.exclude, u.cgroup)
          ? ['excluded', skipText('excluded')]
          : cfg.include.length > 0 && !matches(cfg.include, u.cgroup)
            ? ['not-included', skipText('not-included')]
            : null;
    if (why !== null) this.c.note(u.cgroup, 0, u.cgroup, why[0], why[1]);
    return why === null && (this.c.cooldownUntil.get(u.cgroup) ?? -Infinity) <= this.c.now();
  }

  /** CPUs the unit's processes may use: its cpuset, else every online CPU. */
  private permitted(u: UnitBrief): number[] {
    const all = this.c.allCpus();
    return u.cpus === null ? [...all] : u.cpus.filter((x) => all.includes(x));
  }

  private select(u: UnitCpuBrief): boolean {
    if (u.windowSeconds <= 0 || u.members.length === 0) return false;
    const rep = u.members[0]!;
    if (u.members.some((m) => m.pid === this.c.selfPid || m.pid === 1)) return false; // the agent's own cgroup, init's
    if (u.cpuSeconds / u.windowSeconds < this.c.cfg.minCpu) return false;
    const permitted = this.permitted(u);
    const pinned = u.members.find(
      (m) =>
        m.cpusAllowed !== null &&
        !sameSet(m.cpusAllowed, permitted) &&
        !sameSet(m.cpusAllowed, this.c.agentCpus(m.pid) ?? []),
    );
    if (pinned !== undefined && !this.c.cfg.overridePins) {
      this.c.note(
        u.cgroup,
        rep.pid,
        rep.comm,
        'pinned-cpus',
        `CPU affinity of pid ${pinned.pid} (${pinned.comm}) set by the user (use --override-pins to manage it)`,
      );
      return false;
    }
    return true;
  }

  /** The units to decide on this pass, as the policy sees a process. */
  sample(nowMs: number): ProcessView[] {
    return this.sampler.sample(nowMs).map((s) => this.view(s));
  }

  private view(s: UnitSample): ProcessView {
    const rep = s.members[0]!;
    let total = 0;
    const nodes: Record<
      string,
      { hugeBytes: number; heapBytes: number; stackBytes: number; privateBytes: number; totalBytes: number }
    > = {};
    for (const [n, bytes] of s.anonByNode) {
      if (bytes <= 0) continue;
      nodes[String(n)] = { hugeBytes: 0, heapBytes: 0, stackBytes: 0, privateBytes: bytes, totalBytes: bytes };
      total += bytes;
    }
    return {
      pid: rep.pid,
      comm: rep.comm,
      cmdline: s.cgroup,
      rssBytes: s.memoryBytes,
      cpu: s.cpuSeconds / s.windowSeconds,
      cpusAllowed: rep.cpusAllowed,
      cpusPermitted: this.permitted(s),
      agentCpus: this.c.agentCpus(rep.pid),
      threads: s.threads,
      memory: { kind: 'ok', nodes, totalBytes: total, policies: { default: total } },
      cpuNodes: s.cpuNodes,
      lastNodes: s.lastNodes,
      memsAllowed: s.mems,
      windowSeconds: s.windowSeconds,
      ...(this.c.cfg.granularity === 'threads' ? { threadUse: s.threadUse } : {}),
      unit: { cgroup: s.cgroup, pids: s.members.map((m) => m.pid) },
    };
  }
}
