// One pass of the agent, as a sequence of stages:
//   sample   the machine (pass_machine.ts: layout, the CPUs it may place on, /proc/stat) and the
//            candidates: processes (pass_candidates.ts, through the one process sampler) or, with
//            --unit cgroup, cgroup v2 leaves (unit_source.ts)
//   filter   inside the sampling, between its reads: who may be placed (policy/agent/candidates.ts),
//            each costly read only for those that pass the cheaper ones
//   decide   the pure policy (policy/agent/decide.ts) on the views, the nodes and the budget
//   act      each decision carried out (or, with --advise, only logged), logged once per process
//            and reason (decision_log.ts, policy/agent/skips.ts), cooled down when the table says
// The first pass only takes the baseline (CPU time needs a window).
import { decide } from '../policy/agent/decide.js';
import { type Budget, newBudget, refill } from '../policy/agent/budget.js';
import { migrateShare } from '../policy/agent/pace.js';
import { SKIPS } from '../policy/agent/skips.js';
import type { Decision, ProcessView } from '../policy/agent/types.js';
import type { SysRoot } from '../sysfs/root.js';
import { actOn } from './act.js';
import { actOnUnit } from './act_unit.js';
import { REAL_CLOCK } from './clock.js';
import type { AgentConfig } from './config.js';
import { DecisionLog } from './decision_log.js';
import type { AgentJournal } from './journal.js';
import type { AgentMetricsSink } from './metrics_sink.js';
import type { MoveClock } from './mover.js';
import type { ThreadOps } from './ops.js';
import { Cooldowns, type PassContext, ProcessCandidates } from './pass_candidates.js';
import { MachineStage } from './pass_machine.js';
import { UnitSource } from './unit_source.js';

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
  private readonly machine: MachineStage;
  private readonly processes: ProcessCandidates;
  private readonly units: UnitSource | null;
  private readonly cooldowns = new Cooldowns();
  private readonly decisions: DecisionLog;
  private budget: Budget | null = null;
  /** The pass running now (the unit source reads its time and CPUs). */
  private ctx: PassContext | null = null;
  /** Processes whose copy the last pass left for a second window ('confirming': policy/agent/decide.ts). */
  private confirming: ReadonlySet<number> = new Set();
  /** Processes the last pass could not read for want of memory (ENOMEM): said when it starts and ends. */
  private pressured = 0;

  constructor(
    private readonly cfg: AgentConfig,
    private readonly deps: PassDeps,
  ) {
    this.machine = new MachineStage(deps.root, deps.selfPid, deps.log);
    this.decisions = new DecisionLog(cfg, deps.log, deps.metrics, (pid) => this.processes.idOf(pid));
    const agentCpus = (pid: number) => deps.journal?.agentCpus(pid) ?? null;
    this.processes = new ProcessCandidates(cfg, {
      ...deps,
      agentCpus,
      cooldowns: this.cooldowns,
      notes: this.decisions,
    });
    this.units =
      cfg.unit !== 'cgroup'
        ? null
        : new UnitSource({
            root: deps.root,
            cfg,
            selfPid: deps.selfPid,
            now: () => this.ctx?.nowMs ?? 0,
            allCpus: () => this.ctx?.machine.cpus ?? [],
            allNodes: () => this.ctx?.machine.nodeIds ?? [],
            agentCpus,
            cooldownUntil: this.cooldowns.units,
            note: (cgroup, pid, comm, skip, reason) =>
              this.decisions.note({ pid, comm, nowMs: this.ctx?.nowMs ?? 0 }, skip, reason, {
                cgroup,
                pids: pid > 0 ? [pid] : [],
              }),
          });
  }

  /**
   * True when the last pass took a fresh baseline of a process it may act on (it was small,
   * excluded, pinned or cooling down the pass before), or left a busy one for being younger than
   * --min-age (without the watch: with it, the watch wakes the agent once that one is old
   * enough): the next pass should come after a short window, not a whole interval, as after
   * start-up.
   */
  /**
   * The last pass found nothing it could judge after a short window: no process past the
   * screens without a window (its first pass), no baseline. Units (--unit cgroup): never said.
   * After a first pass that found nothing, a pass a second later would read the same nothing
   * (what an idle agent costs): the next comes after --interval.
   */
  get foundNothing(): boolean {
    return this.units === null && this.processes.unwindowed === 0 && this.baselines === 0;
  }

  get wantsShortWindow(): boolean {
    return (
      this.baselines > 0 ||
      this.confirming.size > 0 ||
      (this.units === null && this.processes.young > 0 && !this.watching)
    );
  }

  /** Processes the last pass left bound to CPUs by their user (pinned-cpus), with those CPUs; none with units. */
  get pinned(): ReadonlyMap<number, readonly number[]> {
    return this.units === null ? this.processes.pinned : new Map();
  }

  /** Processes (or units) the last pass took a fresh baseline of. */
  get baselines(): number {
    return this.units?.baselines ?? this.processes.baselines;
  }

  /**
   * The watch runs between passes (run.ts sets it once it is subscribed to the process events):
   * it follows new processes until they are old enough.
   */
  watching = false;

  /**
   * Runs one pass at `nowMs`; resolves to the decisions (none on the first, baseline pass) once
   * they are carried out. A stop request ends a move in progress and skips the moves after it.
   */
  async run(nowMs: number): Promise<Decision[]> {
    const ctx: PassContext = { nowMs, machine: this.machine.read() };
    this.ctx = ctx;
    const views = this.sample(ctx);
    // Its own CPU counted where it ran (self_cpu.ts): after reading processes in depth, after each move.
    if (views.length > 0) this.machine.markSelf();
    // Free memory and numastat: read only when something needs them.
    if (this.deps.metrics) this.deps.metrics.machine(ctx.machine.reading());
    const decisions = this.decide(ctx, views);
    for (const d of decisions) {
      if (this.deps.signal?.aborted) break;
      await this.act(ctx, d);
      if (d.kind !== 'skip') this.machine.markSelf();
    }
    if (views.length > 0) this.deps.metrics?.locality(views);
    return decisions;
  }

  /** Sample and filter: the views of the processes (or units) that may be placed. */
  private sample(ctx: PassContext): ProcessView[] {
    const views = this.units === null ? this.processes.sample(ctx) : this.units.sample(ctx.nowMs);
    this.forgetExited();
    if (this.units === null) this.notePressure(this.processes.noMemory);
    return views;
  }

  /**
   * Memory pressure (the agent's cgroup at its memory.max, or the machine out of memory): the
   * kernel cannot allocate the buffer to read a process's numa_maps (ENOMEM). That process is
   * left alone this pass (nothing is decided on half a reading) and read again at the next;
   * the log says when it starts, with how many, and when it is over.
   */
  private notePressure(n: number): void {
    if (n > 0 && this.pressured === 0)
      this.deps.log(
        `memory pressure: the kernel could not allocate memory to read the numa_maps of ${n} process${n === 1 ? '' : 'es'} (ENOMEM); left alone until it can`,
      );
    if (n === 0 && this.pressured > 0) this.deps.log('memory pressure over: every numa_maps read again');
    this.pressured = n;
  }

  /** Decide: the pure policy, with the migration budget refilled for the time since the last pass. */
  private decide(ctx: PassContext, views: readonly ProcessView[]): Decision[] {
    const bo = { mbps: this.cfg.maxMigrateMbps, burstSeconds: this.cfg.intervalMs / 1000 };
    this.budget = this.budget === null ? newBudget(ctx.nowMs, bo) : refill(this.budget, ctx.nowMs, bo);
    if (views.length === 0) {
      this.confirming = new Set();
      return [];
    }
    // --once has no second window: a copy it judges is made.
    const confirm = { decidedBefore: this.confirming, minWindowSeconds: this.cfg.once ? 0 : bo.burstSeconds / 2 };
    const r = decide(
      {
        nodes: ctx.machine.reading().nodes,
        processes: views,
        budget: this.budget,
        intervalSeconds: bo.burstSeconds,
        confirm,
      },
      this.cfg,
    );
    this.budget = r.budget;
    this.confirming = new Set(
      r.decisions.filter((d) => d.kind === 'skip' && d.skip === 'confirming').map((d) => d.pid),
    );
    return r.decisions;
  }

  /** Act: a skip is logged (and cooled down when the table says), a move carried out or, with --advise, advised. */
  private async act(ctx: PassContext, d: Decision): Promise<void> {
    const who = d.unit?.cgroup ?? this.processes.idOf(d.pid);
    if (d.kind === 'skip') {
      if (SKIPS[d.skip].coolsDown) this.cooldowns.start(who, ctx.nowMs + this.cfg.cooldownMs);
      this.decisions.log(d, null, ctx.nowMs);
      return;
    }
    if (this.deps.journal === null) {
      this.decisions.log(d, { kind: 'advised' }, ctx.nowMs);
      return;
    }
    const move = {
      clock: this.deps.clock ?? REAL_CLOCK,
      signal: this.deps.signal ?? NEVER,
      pace: { mbps: this.cfg.maxMigrateMbps, cpuShare: migrateShare(this.cfg.maxMigrateCpu, idleOf(ctx)) },
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
    this.cooldowns.start(who, ctx.nowMs + this.cfg.cooldownMs);
    this.decisions.log(d, o, ctx.nowMs);
    if (o.kind === 'moved' || o.kind === 'partial' || o.kind === 'stopped')
      this.deps.metrics?.moved(o.bytes, o.pages, o.threads, d.unit?.cgroup);
    if (o.kind === 'failed' && o.putBack !== undefined && o.putBack.failures.length > 0)
      this.deps.metrics?.putBackFailed(o.putBack.failures.length);
  }

  /** What it keeps between passes, by kind (bounded by the processes and units there now). */
  get kept(): { cooldowns: number; logged: number } {
    return { cooldowns: this.cooldowns.size, logged: this.decisions.size };
  }

  /**
   * Drops state of processes (a reused pid is another process) and units that are gone, their
   * metric series, and journal entries of threads that exited.
   */
  private forgetExited(): void {
    const alive = {
      startOf: (pid: number) => this.processes.startOf(pid),
      unit: (cgroup: string) => this.units?.seen.has(cgroup) === true,
    };
    this.cooldowns.forget(alive);
    this.decisions.forget(alive);
    if (this.units !== null) this.deps.metrics?.forgetUnits?.(alive.unit);
    this.deps.journal?.prune((e) => this.deps.ops.threadStart(e.pid, e.tid) === e.start);
  }
}

/** The machine's idle CPUs over the pass's window (the agent's own counted idle). */
function idleOf(ctx: PassContext): number {
  return ctx.machine.reading().nodes.reduce((s, n) => s + n.idleCpus, 0);
}
