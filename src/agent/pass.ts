// One pass of the agent: read the machine, sample processes (threads only for those with
// --min-rss resident that pass the screen without CPU use: names, pins, cooldown; numa_maps only
// for those busy enough) or, with --unit cgroup, cgroup v2 leaves (unit_source.ts), decide with
// the pure policy, act, log, count. The first pass only takes the baseline (CPU time needs a window).
import type { ProcessSample } from '../model/stat.js';
import {
  createSampler,
  type PrescreenBrief,
  type ProcessSampler,
  type SampleBrief,
} from '../discover/process_sampler.js';
import { prescreen, screen } from '../policy/agent/candidates.js';
import { decide } from '../policy/agent/decide.js';
import { newBudget, refill, type Budget } from '../policy/agent/budget.js';
import type { Decision, ProcessBrief, ProcessView, SkipReason } from '../policy/agent/types.js';
import { readCgroupCpuset } from '../sysfs/proc_cgroup.js';
import { readCgroupAllowedCpus } from '../sysfs/cgroup_cpuset.js';
import { readCgroupCpuMax } from '../sysfs/cgroup_v2.js';
import { formatCpuList } from '../model/cpuset.js';
import type { SysRoot } from '../sysfs/root.js';
import { actOn } from './act.js';
import { actOnUnit } from './act_unit.js';
import { REAL_CLOCK } from './clock.js';
import type { AgentConfig } from './config.js';
import type { AgentJournal } from './journal.js';
import { outcomeName, renderLogLine, type Outcome } from './log_line.js';
import { MachineFiles, readCpuTimes, readLayout, readMachine, type CpuReading, type NodeLayout } from './machine.js';
import type { AgentMetricsSink } from './metrics_sink.js';
import type { MoveClock } from './mover.js';
import type { ThreadOps } from './ops.js';
import { UnitSource } from './unit_source.js';
import { cgroupPin } from '../policy/agent/cgroup_unit.js';

/** Skips worth one log line when a process first gets them (others are silent: every small or idle process). */
const NOTABLE: ReadonlySet<SkipReason> = new Set([
  'excluded',
  'not-included',
  'pinned-cpus',
  'pinned-memory',
  'pinned-cgroup',
  'no-permission',
  'local',
  'low-gain',
  'no-room',
  'budget',
  'no-memory',
]);
/**
 * Skips after which the process is not looked at again (numa_maps not re-read) for a cooldown:
 * nothing to gain now (local, low-gain) or nothing it may do (pinned memory, no permission).
 */
const COOL_AFTER: ReadonlySet<SkipReason> = new Set(['local', 'low-gain', 'pinned-memory', 'no-permission']);

export interface PassDeps {
  readonly root: SysRoot;
  readonly ops: ThreadOps;
  /** null with --advise: nothing is ever changed. */
  readonly journal: AgentJournal | null;
  readonly log: (line: string) => void;
  readonly selfPid: number;
  readonly pageSize: number;
  readonly metrics?: AgentMetricsSink | null;
  /** Aborted by SIGINT/SIGTERM: a move in progress stops after its current batch. */
  readonly signal?: AbortSignal;
  /** The mover's clock (tests); default the real one. */
  readonly clock?: MoveClock;
}

const NEVER = new AbortController().signal;

export class AgentPass {
  private readonly sampler: ProcessSampler;
  private layout: NodeLayout | null = null;
  /** /proc/stat at the last pass (null before the first: every CPU counts as idle). */
  private cpuTimes: CpuReading | null = null;
  private readonly cooldown = new Map<number, number>();
  /** --unit cgroup: cooldowns by cgroup path. */
  private readonly unitCooldown = new Map<string, number>();
  /** The last outcome logged per process (pid) or unit (cgroup path). */
  private readonly lastLogged = new Map<number | string, string>();
  private readonly units: UnitSource | null;
  private budget: Budget | null = null;
  private briefs = new Map<number, ProcessBrief>();
  /** CPUs each process may use (its cgroup cpuset), read this pass for those past the first screen. */
  private permittedOf = new Map<number, number[]>();
  private nowMs = 0;
  private allCpus: number[] = [];
  /** The log line of the agent's own cpuset, as last logged (null: it restricts nothing). */
  private cpusetLine: string | null = null;
  private readonly files: MachineFiles;

  constructor(
    private readonly cfg: AgentConfig,
    private readonly deps: PassDeps,
  ) {
    // Anonymous memory only: file pages (program text, libraries) are shared with other
    // processes; moving them for one costs a TLB shootdown on every CPU running any of them.
    // Kernel threads, processes under --min-rss and idle ones are dropped on one read of
    // /proc/PID/stat, before anything else of theirs is read (discover/process_sampler.ts, stage 1).
    // The idle bar is a quarter of --min-cpu: a process near the bar (a measurement is noisy:
    // in a guest on a loaded host a busy process read 0.1-0.16 CPUs) keeps its threads' baseline,
    // so the pass where it reads busy can judge it; an idle one (nearly no CPU) is read no further.
    this.files = new MachineFiles(deps.root);
    const screen = { minRssBytes: cfg.minRssBytes, pageSize: deps.pageSize, idleBelow: cfg.minCpu / 4 };
    this.sampler = createSampler(deps.root, {
      skip: (pid) => this.skip(pid),
      prescreen: (b) => this.prescreen(b),
      select: (b) => this.select(b),
      memory: { numaMaps: { anonOnly: true, policies: true } },
      threadUse: cfg.granularity === 'threads',
      screen,
    });
    this.units =
      cfg.unit !== 'cgroup'
        ? null
        : new UnitSource({
            root: deps.root,
            cfg,
            selfPid: deps.selfPid,
            now: () => this.nowMs,
            allCpus: () => this.allCpus,
            allNodes: () => this.layout?.nodes.map((n) => n.id) ?? [],
            agentCpus: (pid) => deps.journal?.agentCpus(pid) ?? null,
            cooldownUntil: this.unitCooldown,
            note: (cgroup, pid, comm, skip, reason) =>
              this.note(pid, comm, skip, reason, { cgroup, pids: pid > 0 ? [pid] : [] }),
          });
  }

  /**
   * The CPUs the agent places on: the nodes' CPUs within its own cgroup's cpuset (in a container,
   * the container's CPUs), read with the layout (at start and on hotplug) and logged when it
   * leaves some out. A process whose cgroup says nothing is given these, not every CPU.
   */
  private placeable(layout: NodeLayout): number[] {
    const all = layout.nodes.flatMap((n) => n.cpus).sort((a, b) => a - b);
    const own = readCgroupAllowedCpus(this.deps.root, this.deps.selfPid);
    const cpus = own === null ? all : all.filter((c) => own.cpus.includes(c));
    const line =
      cpus.length === all.length || own === null
        ? null
        : `placing only on CPUs ${formatCpuList(cpus) || 'none'} of ${formatCpuList(all)}: those the agent's cgroup ${own.cgroup} allows (/${own.path})`;
    if (line !== null && line !== this.cpusetLine) this.deps.log(line);
    this.cpusetLine = line;
    return cpus;
  }

  /** CPUs the process may use (its cgroup cpuset), or why it is never touched (a pinned Kubernetes pod). */
  private permitted(b: PrescreenBrief): number[] | string {
    const cg = readCgroupCpuset(this.deps.root, b.pid);
    if (cg === null) return this.allCpus;
    const pin = cgroupPin(cg.cgroup, cg.cpus, b.status.memsAllowed, {
      cpus: this.allCpus,
      nodes: this.layout?.nodes.map((n) => n.id) ?? [],
      cpuLimit: () => readCgroupCpuMax(this.deps.root, cg.cgroup),
    });
    return pin ?? cg.cpus.filter((c) => this.allCpus.includes(c));
  }

  private note(
    pid: number,
    comm: string,
    skip: SkipReason,
    reason: string,
    unit?: { cgroup: string; pids: number[] },
  ): void {
    if (NOTABLE.has(skip)) this.logDecision({ kind: 'skip', pid, comm, skip, reason, ...(unit ? { unit } : {}) }, null);
  }

  private ctx() {
    return { selfPid: this.deps.selfPid, nowMs: this.nowMs, cooldownUntil: this.cooldown };
  }

  private brief(b: PrescreenBrief, cpu: number): ProcessBrief {
    return {
      pid: b.pid,
      comm: b.status.name,
      cmdline: b.cmdline,
      rssBytes: b.status.rssBytes,
      cpu,
      cpusAllowed: b.status.cpusAllowed,
      cpusPermitted: this.permittedOf.get(b.pid) ?? b.status.cpusAllowed ?? [],
      agentCpus: this.deps.journal?.agentCpus(b.pid) ?? null,
    };
  }

  /**
   * Left alone whatever its status says, so its status and cmdline are not read: the agent
   * itself, init, and a process cooling down (prescreen would say so after reading them).
   */
  private skip(pid: number): boolean {
    return pid === this.deps.selfPid || pid === 1 || (this.cooldown.get(pid) ?? -Infinity) > this.nowMs;
  }

  /** Before its threads are read: everything but CPU use (the cgroup cpuset read only for those that pass the rest). */
  private prescreen(b: PrescreenBrief): boolean {
    let why = prescreen(this.brief(b, 0), this.ctx(), this.cfg);
    if (why === null) {
      const permitted = this.permitted(b);
      if (typeof permitted === 'string') {
        this.note(b.pid, b.status.name, 'pinned-cgroup', permitted);
        return false;
      }
      this.permittedOf.set(b.pid, permitted);
      why = prescreen(this.brief(b, 0), this.ctx(), this.cfg);
    }
    if (why !== null) this.note(b.pid, b.status.name, why, SCREEN_REASON[why] ?? why);
    return why === null;
  }

  /** With its CPU use over the window, before numa_maps is read. */
  private select(b: SampleBrief): boolean {
    if (b.windowSeconds <= 0) return false;
    const brief = this.brief(b, b.cpuSeconds / b.windowSeconds);
    const why = screen(brief, this.ctx(), this.cfg);
    if (why === null) this.briefs.set(b.pid, brief);
    else this.note(b.pid, brief.comm, why, SCREEN_REASON[why] ?? why);
    return why === null;
  }

  private logDecision(d: Decision, o: Outcome): void {
    const key = d.kind === 'skip' ? d.skip : 'move';
    const who = d.unit?.cgroup ?? d.pid;
    if (d.kind === 'skip' && this.lastLogged.get(who) === key) return;
    this.lastLogged.set(who, key);
    this.deps.log(renderLogLine(d, o, new Date(this.nowMs), this.cfg.logFormat));
    this.deps.metrics?.decision(outcomeName(d, o));
  }

  /**
   * True when the last pass took a fresh baseline of a process it may act on (it was small,
   * excluded, pinned or cooling down the pass before): the next pass should come after a short
   * window, not a whole interval, as after start-up.
   */
  get wantsShortWindow(): boolean {
    return this.baselines > 0;
  }

  /** Processes (or units) the last pass took a fresh baseline of. */
  get baselines(): number {
    return this.units?.baselines ?? this.sampler.baselines;
  }

  /**
   * Runs one pass at `nowMs`; resolves to the decisions (none on the first, baseline pass) once
   * they are carried out. A stop request ends a move in progress and skips the moves after it.
   */
  async run(nowMs: number): Promise<Decision[]> {
    this.nowMs = nowMs;
    const previous = this.layout;
    const layout = (this.layout = readLayout(this.files, previous));
    if (layout !== previous) this.allCpus = this.placeable(layout);
    const before = this.cpuTimes;
    const cpuTimes = readCpuTimes(this.files);
    this.cpuTimes = cpuTimes;
    this.briefs = new Map();
    this.permittedOf = new Map();
    const samples = this.units === null ? this.sampler.sample(nowMs) : [];
    const unitViews = this.units?.sample(nowMs) ?? [];
    // Free memory and numastat: read only when something needs them.
    const machine = () => readMachine(this.deps.root, layout, before, cpuTimes);
    const m = this.deps.metrics ? machine() : null;
    if (m !== null) this.deps.metrics?.machine(m);
    const bo = { mbps: this.cfg.maxMigrateMbps, burstSeconds: this.cfg.intervalMs / 1000 };
    this.budget = this.budget === null ? newBudget(nowMs, bo) : refill(this.budget, nowMs, bo);
    const views = [...samples.map((s) => this.view(s)).filter((v): v is ProcessView => v !== null), ...unitViews];
    this.forgetExited();
    if (views.length === 0) return [];
    const r = decide(
      { nodes: (m ?? machine()).nodes, processes: views, budget: this.budget, intervalSeconds: bo.burstSeconds },
      this.cfg,
    );
    this.budget = r.budget;
    for (const d of r.decisions) {
      if (this.deps.signal?.aborted) break;
      await this.carryOut(d);
    }
    this.deps.metrics?.locality(views);
    return r.decisions;
  }

  private view(s: ProcessSample): ProcessView | null {
    const b = this.briefs.get(s.pid);
    if (b === undefined) return null;
    return {
      ...b,
      threads: s.threads,
      memory: s.memory,
      cpuNodes: s.cpuNodes,
      lastNodes: s.lastNodes,
      memsAllowed: s.memsAllowed,
      windowSeconds: s.windowSeconds,
      ...(s.threadUse ? { threadUse: s.threadUse } : {}),
    };
  }

  private async carryOut(d: Decision): Promise<void> {
    if (d.kind === 'skip') {
      if (COOL_AFTER.has(d.skip)) this.coolDown(d);
      this.logDecision(d, null);
      return;
    }
    if (this.deps.journal === null) {
      this.logDecision(d, { kind: 'advised' });
      return;
    }
    const move = {
      clock: this.deps.clock ?? REAL_CLOCK,
      signal: this.deps.signal ?? NEVER,
      pace: { mbps: this.cfg.maxMigrateMbps, cpuShare: this.cfg.maxMigrateCpu },
    };
    const deps = {
      ops: this.deps.ops,
      journal: this.deps.journal,
      move,
      selfTid: this.deps.selfPid,
      ...(d.unit ? { cgroup: d.unit.cgroup } : {}),
    };
    const o = d.unit
      ? await actOnUnit(d.unit.pids, d.comm, d.placement, deps)
      : await actOn(d.pid, d.comm, d.placement, deps);
    this.coolDown(d);
    this.logDecision(d, o);
    if (o.kind === 'moved' || o.kind === 'partial' || o.kind === 'stopped')
      this.deps.metrics?.moved(o.bytes, o.pages, o.threads, d.unit?.cgroup);
    if (o.kind === 'failed' && o.putBack !== undefined && o.putBack.failures.length > 0)
      this.deps.metrics?.putBackFailed(o.putBack.failures.length);
  }

  private coolDown(d: Decision): void {
    if (d.unit) this.unitCooldown.set(d.unit.cgroup, this.nowMs + this.cfg.cooldownMs);
    else this.cooldown.set(d.pid, this.nowMs + this.cfg.cooldownMs);
  }

  /** Drops state of processes (and units) that are gone, and journal entries of threads that exited. */
  private forgetExited(): void {
    const alive = this.sampler.listed;
    for (const [pid, until] of this.cooldown) if (until <= this.nowMs && !alive.has(pid)) this.cooldown.delete(pid);
    for (const [cg, until] of this.unitCooldown)
      if (until <= this.nowMs && !this.units?.seen.has(cg)) this.unitCooldown.delete(cg);
    for (const who of this.lastLogged.keys())
      if (typeof who === 'number' ? !alive.has(who) : !this.units?.seen.has(who)) this.lastLogged.delete(who);
    this.deps.journal?.prune((e) => this.deps.ops.threadStart(e.pid, e.tid) === e.start);
  }
}

const SCREEN_REASON: Partial<Record<SkipReason, string>> = {
  excluded: 'matches --exclude',
  'not-included': 'matches no --include',
  'pinned-cpus': 'CPU affinity set by the user (use --override-pins to manage it)',
};
