// The sample and filter stages of an agent pass over processes: the one process sampler reads in
// stages and, between them, this filter says which processes go on (policy/agent/candidates.ts),
// so each costly read is made only for those that may be placed:
//   stat      kernel threads, under --min-rss, idle (a quarter of --min-cpu): read no further
//   skip      the agent itself, init, a process cooling down: its status is not read
//   prescreen status and cmdline: --exclude / --include, pinned CPUs, its cgroup's cpuset
//   select    its CPU over the window (its threads): under --min-cpu
//   numa_maps for those left: the views the policy decides on
// A process left alone is noted in the decision log (once per reason, when the skip table says).
import { readNumaBalancing, readTaskNumaFaults } from '../discover/access_locality.js';
import {
  createSampler,
  type PrescreenBrief,
  type ProcessSampler,
  type SampleBrief,
} from '../discover/process_sampler.js';
import type { AccessLocality } from '../model/access_locality.js';
import type { ProcessSample, ThreadUse } from '../model/stat.js';
import { accessLocality } from '../policy/access_locality.js';
import { cgroupPin } from '../policy/agent/cgroup_unit.js';
import { prescreen, screen } from '../policy/agent/candidates.js';
import type { ProcessBrief, ProcessView } from '../policy/agent/types.js';
import { readCgroupCpuset } from '../sysfs/cgroup_cpuset.js';
import { readCgroupCpuMax } from '../sysfs/cgroup_v2.js';
import { CLOCK_TICKS_PER_SECOND } from '../sysfs/proc_task_stat.js';
import { readUptime } from '../sysfs/proc_uptime.js';
import type { SysRoot } from '../sysfs/root.js';
import type { AgentConfig } from './config.js';
import type { DecisionLog } from './decision_log.js';
import type { MachineNow } from './pass_machine.js';
import { PerProcess, type ProcessId } from './per_process.js';

/** When and where this pass runs. */
export interface PassContext {
  readonly nowMs: number;
  readonly machine: MachineNow;
}

/** Until when each process (pid + start time) and unit (cgroup path) is left alone after a decision. */
export class Cooldowns {
  readonly processes = new PerProcess<number>();
  readonly units = new Map<string, number>();

  start(who: ProcessId | string, untilMs: number): void {
    if (typeof who === 'string') this.units.set(who, untilMs);
    else this.processes.set(who, untilMs);
  }

  /**
   * Drops the cooldowns of processes and units that are gone, over or not: a pid reused by a new
   * process, or a cgroup path created again, is someone else.
   */
  forget(alive: { startOf: (pid: number) => number | null; unit: (cgroup: string) => boolean }): void {
    this.processes.retain(alive.startOf);
    for (const cg of this.units.keys()) if (!alive.unit(cg)) this.units.delete(cg);
  }

  get size(): number {
    return this.processes.size + this.units.size;
  }
}

/**
 * Passes between two reads of a process stage 1 stopped at its last read (docs/agent.md: a
 * process that grows past --min-rss or gets busy is seen at most this many passes later).
 */
export const RECHECK_PASSES = 4;

export interface CandidateDeps {
  readonly root: SysRoot;
  readonly selfPid: number;
  readonly pageSize: number;
  /** CPUs the agent last set on a process (its journal), or null. */
  readonly agentCpus: (pid: number) => readonly number[] | null;
  readonly cooldowns: Cooldowns;
  readonly notes: DecisionLog;
}

export class ProcessCandidates {
  private readonly sampler: ProcessSampler;
  private ctx: PassContext | null = null;
  /** This pass: the brief of each process select() kept, and the CPUs each may use (its cgroup cpuset). */
  private briefs = new Map<number, ProcessBrief>();
  private permittedOf = new Map<number, readonly number[]>();
  /** The machine's CPUs as a set, for the array they were made from (a cgroup's cpuset is filtered by it). */
  private cpuSet: { of: readonly number[]; set: ReadonlySet<number> } | null = null;
  /** kernel.numa_balancing this pass, read for the first candidate (undefined: not yet). */
  private balancing: number | null | undefined;
  /** Seconds since boot at this pass (a process's age is this less its start time); null when unknown. */
  private uptime: number | null = null;
  /** Busy processes this pass left for being younger than --min-age. */
  private youngNow = 0;
  /** Processes past the stat screen and the prescreen this pass that had no window to be judged over (a first pass). */
  private unwindowedNow = 0;
  /** Processes this pass left bound to CPUs by their user (pinned-cpus), with those CPUs. */
  private pinnedNow = new Map<number, readonly number[]>();

  constructor(
    private readonly cfg: AgentConfig,
    private readonly d: CandidateDeps,
  ) {
    // Anonymous memory only: file pages (program text, libraries) are shared with other
    // processes; moving them for one costs a TLB shootdown on every CPU running any of them.
    // The idle bar is a quarter of --min-cpu: a process near the bar (CPU use read over a short
    // window is noisy, more so in a guest on a loaded host) keeps its threads' baseline,
    // so the pass where it reads busy can judge it; an idle one (nearly no CPU) is read no further.
    // A process that stage 1 stopped (under --min-rss, or idle) is read again at its turn, every
    // RECHECK_PASSES passes, not every pass: on a server of many idle processes these reads
    // would be most of a pass.
    this.sampler = createSampler(d.root, {
      screen: { minRssBytes: cfg.minRssBytes, pageSize: d.pageSize, idleBelow: cfg.minCpu / 4 },
      recheckEvery: RECHECK_PASSES,
      skip: (pid) => this.skip(pid),
      prescreen: (b) => this.prescreen(b),
      select: (b) => this.select(b),
      memory: { numaMaps: { anonOnly: true, policies: true } },
      threadUse: cfg.granularity === 'threads',
    });
  }

  /** Processes the last pass took a fresh baseline of. */
  get baselines(): number {
    return this.sampler.baselines;
  }

  /** Busy processes the last pass left for being younger than --min-age (the next pass comes after a short window). */
  get young(): number {
    return this.youngNow;
  }

  /** Processes the last pass would have judged but had no CPU window for (its first): the next comes after a short one. */
  get unwindowed(): number {
    return this.unwindowedNow;
  }

  /** Processes the last pass left bound to CPUs by their user (pinned-cpus), with those CPUs. */
  get pinned(): ReadonlyMap<number, readonly number[]> {
    return this.pinnedNow;
  }

  /** Processes the last pass left out because the kernel could not allocate memory to read their numa_maps. */
  get noMemory(): number {
    return this.sampler.counts.noMemory;
  }

  /** The start time of the process that had `pid` at the last pass; null when none was read. */
  startOf(pid: number): number | null {
    return this.sampler.startOf(pid);
  }

  /** Who `pid` is this pass (pid + start time); start -1 when unknown. */
  idOf(pid: number): ProcessId {
    return { pid, start: this.sampler.startOf(pid) ?? -1 };
  }

  /** Sample and filter: the processes the policy decides on this pass. */
  sample(ctx: PassContext): ProcessView[] {
    this.ctx = ctx;
    this.briefs = new Map();
    this.permittedOf = new Map();
    this.balancing = undefined;
    this.youngNow = 0;
    this.unwindowedNow = 0;
    this.pinnedNow = new Map();
    this.uptime = this.cfg.minAgeMs > 0 ? readUptime(this.d.root) : null;
    return this.sampler
      .sample(ctx.nowMs)
      .map((s) => this.view(s))
      .filter((v): v is ProcessView => v !== null);
  }

  private get now(): PassContext {
    if (this.ctx === null) throw new Error('ProcessCandidates: sample() before a pass');
    return this.ctx;
  }

  private screenCtx() {
    const cooldownUntil = { get: (pid: number) => this.d.cooldowns.processes.get(this.idOf(pid)) };
    return { selfPid: this.d.selfPid, nowMs: this.now.nowMs, cooldownUntil };
  }

  private note(b: PrescreenBrief, skip: Parameters<DecisionLog['note']>[1], reason?: string): void {
    this.d.notes.note({ pid: b.pid, comm: b.status.name, nowMs: this.now.nowMs }, skip, reason);
  }

  /** Left alone whatever its status says: the agent itself, init, a process cooling down. */
  private skip(pid: number): boolean {
    return (
      pid === this.d.selfPid ||
      pid === 1 ||
      (this.d.cooldowns.processes.get(this.idOf(pid)) ?? -Infinity) > this.now.nowMs
    );
  }

  private brief(b: PrescreenBrief, cpu: number): ProcessBrief {
    const start = this.uptime === null ? null : this.sampler.startOf(b.pid);
    return {
      ...(start === null ? {} : { ageSeconds: Math.max(0, this.uptime! - start / CLOCK_TICKS_PER_SECOND) }),
      pid: b.pid,
      comm: b.status.name,
      cmdline: b.cmdline,
      rssBytes: b.status.rssBytes,
      cpu,
      cpusAllowed: b.status.cpusAllowed,
      cpusPermitted: this.permittedOf.get(b.pid) ?? b.status.cpusAllowed ?? [],
      agentCpus: this.d.agentCpus(b.pid),
    };
  }

  /** CPUs the process may use (its cgroup cpuset), or why it is never touched (a pinned Kubernetes pod). */
  private permitted(b: PrescreenBrief): readonly number[] | string {
    const { cpus, nodeIds } = this.now.machine;
    const cg = readCgroupCpuset(this.d.root, b.pid);
    // The machine's list itself, never a copy a process (10,000 copies of 1,792 ids a pass).
    if (cg === null) return cpus;
    const pin = cgroupPin(cg.cgroup, cg.cpus, b.status.memsAllowed, {
      cpus,
      nodes: nodeIds,
      cpuLimit: () => readCgroupCpuMax(this.d.root, cg.cgroup),
    });
    if (this.cpuSet?.of !== cpus) this.cpuSet = { of: cpus, set: new Set(cpus) };
    const online = this.cpuSet.set;
    return pin ?? cg.cpus.filter((c) => online.has(c));
  }

  /** Before its threads are read: everything but CPU use (its cgroup cpuset read only for those that pass the rest). */
  private prescreen(b: PrescreenBrief): boolean {
    let why = prescreen(this.brief(b, 0), this.screenCtx(), this.cfg);
    if (why === null) {
      const permitted = this.permitted(b);
      if (typeof permitted === 'string') {
        this.note(b, 'pinned-cgroup', permitted);
        return false;
      }
      this.permittedOf.set(b.pid, permitted);
      why = prescreen(this.brief(b, 0), this.screenCtx(), this.cfg);
    }
    if (why !== null) this.note(b, why);
    if (why === 'pinned-cpus' && b.status.cpusAllowed !== null) this.pinnedNow.set(b.pid, b.status.cpusAllowed);
    return why === null;
  }

  /**
   * With its CPU use over the window, before numa_maps is read. Never more CPUs than it has
   * threads: under a loaded host (a guest's ticks land in bursts, a pass's reads run late) its
   * ticks over the window can read 1.8 CPUs for one thread, and a need of two CPUs would split
   * a one-thread process over two nodes.
   */
  private select(b: SampleBrief): boolean {
    if (b.windowSeconds <= 0) {
      this.unwindowedNow++;
      return false;
    }
    const cpu = Math.min(b.cpuSeconds / b.windowSeconds, Math.max(1, b.status.threads));
    const brief = this.brief(b, cpu);
    const why = screen(brief, this.screenCtx(), this.cfg);
    if (why === null) this.briefs.set(b.pid, brief);
    else this.note(b, why);
    if (why === 'young') this.youngNow++;
    return why === null;
  }

  /**
   * Where its memory accesses go (its threads' NUMA-balancing faults), a signal to the policy
   * (policy/agent/access_signal.ts); not read while kernel.numa_balancing is 0 (the default
   * --numa-balancing off clears it while the agent runs): the kernel then counts no faults.
   */
  private access(pid: number): AccessLocality | null {
    if (this.balancing === undefined) this.balancing = readNumaBalancing(this.d.root);
    if (this.balancing === 0) return null;
    const a = accessLocality(readTaskNumaFaults(this.d.root, pid), this.balancing);
    return a.kind === 'ok' ? a : null;
  }

  private view(s: ProcessSample): ProcessView | null {
    const b = this.briefs.get(s.pid);
    if (b === undefined) return null;
    const access = this.access(s.pid);
    const use = s.threadUse === undefined ? null : capThreads(s.threadUse, s.cpuNodes, s.windowSeconds);
    return {
      ...b,
      ...(use === null ? {} : { cpu: Math.min(b.cpu, use.cpu) }),
      threads: s.threads,
      memory: s.memory,
      cpuNodes: use?.cpuNodes ?? s.cpuNodes,
      lastNodes: s.lastNodes,
      memsAllowed: s.memsAllowed,
      windowSeconds: s.windowSeconds,
      ...(use === null ? {} : { threadUse: use.threadUse }),
      ...(access !== null ? { access } : {}),
    };
  }
}

/**
 * No thread used more than the window: a thread runs on one CPU at a time, but under a loaded
 * host (a guest's ticks land in bursts, a pass's reads run late) its ticks over a 1 s window
 * read up to 1.3 s. Each thread's time is capped at the window, the process's CPU is their sum,
 * and its CPU per node is scaled by what the cap took off (so its own use, counted as room on
 * the nodes it ran on, is read no higher than its need).
 */
export function capThreads(
  use: readonly ThreadUse[],
  cpuNodes: Readonly<Record<string, number>>,
  windowSeconds: number,
): { cpu: number; threadUse: ThreadUse[]; cpuNodes: Record<string, number> } | null {
  if (windowSeconds <= 0) return null;
  const raw = use.reduce((s, t) => s + t.seconds, 0);
  const threadUse = use.map((t) => (t.seconds > windowSeconds ? { ...t, seconds: windowSeconds } : t));
  const capped = threadUse.reduce((s, t) => s + t.seconds, 0);
  const k = raw > 0 ? capped / raw : 1;
  const scaled = Object.fromEntries(Object.entries(cpuNodes).map(([n, x]) => [n, x * k]));
  return { cpu: capped / windowSeconds, threadUse, cpuNodes: scaled };
}
