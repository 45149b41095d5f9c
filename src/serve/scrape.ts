// One scrape: every collector in turn, cheapest and most used first, each timed, until the
// deadline; what was read becomes the /metrics families and the dashboard's data. A collector
// the deadline cut or skipped is a gap ('deadline') and numakit_scrape_partial is 1.
import type { Topology } from '../model/topology.js';
import { Warnings } from '../model/warnings.js';
import { failureLine } from '../model/errors.js';
import type { SysRoot } from '../sysfs/root.js';
import { Gaps, type CollectContext, type GapReason } from './collect/context.js';
import { DoctorCache, type DoctorRun } from './collect/doctor.js';
import { readDeviceIrqs, type DeviceIrqs } from './collect/irqs.js';
import { NodeCpuCollector, type NodeCpu } from './collect/node_cpu.js';
import { readNodeMemory, type NodeMemory } from './collect/node_memory.js';
import { readHugepages, type NodePools } from './collect/node_static.js';
import { TopProcessesCollector, type MachineBrief, type TopProcesses } from './collect/processes.js';
import { readPageSize } from '../discover/node_stat.js';
import { readNodeTiering, readTiering, type NodeTiering } from './collect/tiering.js';
import { readCgroupSeries, type CgroupSeries } from './collect/cgroups.js';
import { TopologyCache } from './collect/topology_cache.js';

export interface ScrapeOptions {
  /** How many processes (by remote memory) to export. */
  readonly top: number;
  readonly doctorIntervalMs: number;
  /** Default time limit of a scrape. */
  readonly timeoutMs: number;
  readonly topologyTtlMs?: number;
  /** How long a process's numa_maps reading is reused while its RSS holds (default 30 s). */
  readonly mapsTtlMs?: number;
  /** Start a doctor run (on a worker) after a scrape when the last is stale; servers set it. */
  readonly doctor?: boolean;
  /**
   * Where a collector that throws is said, one line naming it and the error (its stack too under
   * NUMAKIT_DEBUG=1); default stderr. The scrape goes on without it.
   */
  readonly log?: (line: string) => void;
}

export interface CollectorRun {
  readonly name: string;
  readonly seconds: number;
  /** False when it was skipped for the deadline or left gaps. */
  readonly ok: boolean;
}

export interface Scrape {
  /** Wall-clock ms. */
  readonly at: number;
  readonly seconds: number;
  readonly partial: boolean;
  readonly collectors: readonly CollectorRun[];
  readonly gaps: readonly [string, GapReason, number][];
  /** Collector -> errors it met since the server started (numakit_scrape_collector_errors_total). */
  readonly errors: ReadonlyMap<string, number>;
  readonly topology: Topology | null;
  readonly topologyVersion: number;
  readonly memory: readonly NodeMemory[];
  readonly cpu: readonly NodeCpu[];
  readonly hugepages: readonly NodePools[];
  readonly tiering: Readonly<Record<string, number>>;
  /** Per node: pages promoted in and demoted out (nodeN/vmstat). */
  readonly nodeTiering: readonly NodeTiering[];
  readonly irqs: readonly DeviceIrqs[];
  readonly processes: TopProcesses;
  /** The cgroups of the top processes, by remote memory (at most `top`). */
  readonly cgroups: readonly CgroupSeries[];
  readonly doctor: DoctorRun | null;
}

/** What the collectors read, filled in turn. */
type Readings = {
  -readonly [K in
    | 'topology'
    | 'memory'
    | 'cpu'
    | 'hugepages'
    | 'tiering'
    | 'nodeTiering'
    | 'irqs'
    | 'processes'
    | 'cgroups']: Scrape[K];
};

export class Scraper {
  private readonly cpu = new NodeCpuCollector();
  private readonly procs: TopProcessesCollector;
  private readonly topo: TopologyCache;
  readonly doctor: DoctorCache;
  private readonly pageSize: number;
  /** Collector -> errors it met (thrown out of it, or by a reader it guarded). */
  private readonly errors = new Map<string, number>();

  constructor(
    readonly root: SysRoot,
    readonly opts: ScrapeOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.procs = new TopProcessesCollector(opts.top, opts.mapsTtlMs);
    this.topo = new TopologyCache(opts.topologyTtlMs ?? 60_000);
    this.doctor = new DoctorCache(root, opts.doctorIntervalMs, undefined, undefined, (e) => this.failed('doctor', e));
    this.pageSize = readPageSize(root);
  }

  private brief(t: Topology | null, pools: readonly NodePools[]): MachineBrief {
    const hugetlbInUse = pools.some((n) => n.pools.some((p) => p.total - p.free > 0));
    return { memoryNodes: memoryNodes(t), hugetlbInUse, pageSize: this.pageSize };
  }

  /** Reads what the first scrape needs a baseline of (CPU ticks) and the topology. */
  prime(): void {
    this.scrape();
  }

  scrape(timeoutMs = this.opts.timeoutMs): Scrape {
    const t0 = this.clock();
    const gaps = new Gaps();
    // A fresh warning log per scrape: a file that cannot be parsed is a gap of every scrape that
    // meets it (guard counts them), and is said once on stderr through the root's own log.
    const warnings = new Warnings((w) => this.root.warnings?.add(w));
    const c: CollectContext = {
      root: { ...this.root, warnings },
      now: this.clock,
      deadline: t0 + timeoutMs,
      gaps,
      failed: (name, e) => this.failed(name, e),
    };
    const { runs, r } = this.readAll(c);
    if (this.opts.doctor === true) this.doctor.refreshLater();
    const entries = gaps.entries();
    return {
      at: Date.now(),
      seconds: (this.clock() - t0) / 1000,
      partial: entries.some(([, r]) => r === 'deadline'),
      collectors: runs,
      gaps: entries,
      errors: new Map(this.errors),
      topology: r.topology,
      topologyVersion: this.topo.version,
      memory: r.memory,
      cpu: r.cpu,
      hugepages: r.hugepages,
      tiering: r.tiering,
      nodeTiering: r.nodeTiering,
      irqs: r.irqs,
      processes: r.processes,
      cgroups: r.cgroups,
      doctor: this.doctor.run,
    };
  }

  /**
   * Every collector in turn, each timed and held to the deadline; the later ones read what the
   * earlier found (the topology, the huge page pools, the top processes).
   */
  private readAll(c: CollectContext): { runs: CollectorRun[]; r: Readings } {
    const r: Readings = {
      topology: null,
      memory: [],
      cpu: [],
      hugepages: [],
      tiering: {},
      nodeTiering: [],
      irqs: [],
      processes: { top: [], scanned: 0, mapped: 0, vanished: 0 },
      cgroups: [],
    };
    const steps: [string, () => void][] = [
      ['node_memory', () => (r.memory = readNodeMemory(c))],
      ['node_cpu', () => (r.cpu = this.cpu.read(c))],
      ['topology', () => (r.topology = this.topo.get(c))],
      ['hugepages', () => (r.hugepages = r.topology === null ? [] : readHugepages(c, r.topology))],
      [
        'vmstat',
        () => {
          r.tiering = readTiering(c);
          r.nodeTiering = readNodeTiering(c);
        },
      ],
      ['irqs', () => (r.irqs = r.topology === null ? [] : readDeviceIrqs(c, r.topology))],
      ['processes', () => (r.processes = this.procs.read(c, this.brief(r.topology, r.hugepages)))],
      ['cgroups', () => (r.cgroups = readCgroupSeries(c, r.processes, this.opts.top, this.pageSize))],
    ];
    return { runs: runSteps(steps, c, this.clock), r };
  }

  /** A collector met an error: said in one line (stack under NUMAKIT_DEBUG=1) and counted; the scrape goes on. */
  private failed(name: string, e: unknown): void {
    this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
    const line = failureLine(`numakit: serve: collector ${name}`, e, { stack: Boolean(process.env.NUMAKIT_DEBUG) });
    (this.opts.log ?? ((l: string) => process.stderr.write(l)))(`${line}\n`);
  }
}

/**
 * Runs each step in turn, timed; a step past the deadline is skipped and counted as a gap, one
 * that throws is an 'error' gap and handed to `failed` (never dropped).
 */
function runSteps(steps: readonly [string, () => void][], c: CollectContext, clock: () => number): CollectorRun[] {
  const runs: CollectorRun[] = [];
  for (const [name, run] of steps) {
    if (clock() > c.deadline) {
      c.gaps.add(name, 'deadline');
      runs.push({ name, seconds: 0, ok: false });
      continue;
    }
    const s0 = clock();
    try {
      run();
    } catch (e) {
      c.gaps.add(name, 'error');
      c.failed?.(name, e);
    }
    runs.push({ name, seconds: (clock() - s0) / 1000, ok: !c.gaps.has(name) });
  }
  return runs;
}

function memoryNodes(t: Topology | null): number[] {
  return (t?.nodes ?? []).filter((n) => n.hasMemory).map((n) => n.id);
}
