// `bench mem` from start to result: read the machine, plan (sizes, rows, columns, free memory),
// run the matrices, and record the settings and what a reader must know about the figures.
import { discoverTopology } from '../discover/topology.js';
import type { MemResult, MemOptions } from '../model/bench.js';
import { NumakitError } from '../model/errors.js';
import type { Topology } from '../model/topology.js';
import { parseNodeSpec } from '../policy/nodespec.js';
import { readProcStatus } from '../sysfs/proc_status.js';
import type { SysRoot } from '../sysfs/root.js';
import { planMem, type MemPlan, type PlanNode } from './mem_plan.js';
import { runMem, type MemRunResult } from './mem_run.js';
import { benchNodes, loadAverage, readBenchSettings } from './settings.js';

export interface MemArgs extends Omit<MemOptions, 'arrayBytes' | 'latencyBytes'> {
  /** --nodes, numactl syntax. */
  readonly nodes?: string;
  readonly threads?: number;
  /** Default: planned from the last-level cache (mem_plan.ts). */
  readonly arrayBytes?: number;
  readonly latencyBytes?: number;
  readonly progress?: (done: number, total: number, what: string) => void;
}

const PREFETCH_NOTE =
  "hardware prefetchers were left as they are (numakit cannot switch them: that takes model-specific registers); the random cycle defeats stride prefetchers, but an adjacent-line prefetcher may still fetch each line's neighbour";

function planNodes(root: SysRoot, topo: Topology): PlanNode[] {
  const allowed = readProcStatus(root, process.pid)?.cpusAllowed ?? null;
  const online = new Set(topo.cpus.filter((c) => c.online).map((c) => c.id));
  const nodes = benchNodes(root, topo);
  return topo.nodes.map((n, i) => ({
    id: n.id,
    cpus: n.cpus.filter((c) => online.has(c) && (allowed === null || allowed.includes(c))),
    hasMemory: n.hasMemory,
    memFreeBytes: n.memFreeBytes,
    llcBytes: nodes[i]!.llcBytes,
  }));
}

function selectNodes(spec: string | undefined, topo: Topology): number[] | undefined {
  if (spec === undefined) return undefined;
  const ids = topo.nodes.map((n) => n.id);
  return parseNodeSpec(spec, { allowed: ids, universe: ids });
}

function warnings(topo: Topology, settings: ReturnType<typeof readBenchSettings>, load: number[] | null): string[] {
  const out: string[] = [];
  const cpus = topo.cpus.filter((c) => c.online).length;
  if (load !== null && load[0]! > cpus * 0.25)
    out.push(
      `load average ${load[0]!.toFixed(2)} on ${cpus} CPU(s) at start: other work shares the CPUs and memory; figures may be low, repeat when the machine is idle`,
    );
  if (settings.hypervisor)
    out.push(
      "this is a virtual machine: guest nodes and vCPUs need not match the host's, and other guests share the memory system",
    );
  return out;
}

/** --huge-pages: the buffer is a WebAssembly memory, which only transparent huge pages can back. */
function requireThp(thp: string | null): void {
  if (thp === null || thp === 'never')
    throw new NumakitError(
      `--huge-pages needs transparent huge pages, but sys/kernel/mm/transparent_hugepage/enabled is ${thp === null ? 'absent' : '[never]'} (hugetlbfs pages cannot back a WebAssembly memory)`,
    );
}

/** What a reader must know about the figures: the plan's and the run's notes, then what this machine and these options mean. */
function figureNotes(topo: Topology, args: MemArgs, plan: MemPlan, run: MemRunResult): string[] {
  const notes = [...plan.notes, ...run.notes];
  if (topo.nodes.length === 1)
    notes.push(
      "one NUMA node: every access here is local, so each matrix has one cell, this machine's local figure; there is no remote figure to compare it with",
    );
  if (args.latency) notes.push(PREFETCH_NOTE);
  const single = plan.rows.filter((r) => r.cpus.length < 2);
  if (args.loaded && single.length > 0)
    notes.push(
      `loaded latency needs two CPUs on a node (one chases, the others stream): not measured for node(s) ${single.map((r) => r.node).join(', ')}`,
    );
  const huge = [...run.bandwidth, ...run.latency]
    .map((c) => c.placement.hugeShare)
    .filter((h): h is number => h !== null);
  if (args.hugePages && huge.length > 0)
    notes.push(
      `transparent huge pages backed ${(Math.min(...huge) * 100).toFixed(0)}% or more of the buffer (smaps AnonHugePages)`,
    );
  return notes;
}

export async function benchMem(root: SysRoot, args: MemArgs): Promise<MemResult> {
  const topo = discoverTopology(root, { devices: false, caches: false });
  const settings = readBenchSettings(root, topo);
  if (args.hugePages) requireThp(settings.thp);
  const plan = planMem(planNodes(root, topo), {
    nodes: selectNodes(args.nodes, topo),
    threads: args.threads,
    arrayBytes: args.arrayBytes,
    latencyBytes: args.latencyBytes,
    bandwidth: args.bandwidth,
    latency: args.latency,
    loaded: args.loaded,
  });
  const start = loadAverage(root);
  const time = new Date().toISOString();
  const native = await import('../native/index.js');
  const run = await runMem(native, root, plan, { ...args });
  const options: MemOptions = {
    arrayBytes: plan.arrayBytes,
    latencyBytes: plan.latencyBytes,
    repeats: args.repeats,
    seconds: args.seconds,
    hugePages: args.hugePages,
    loaded: args.loaded,
    bandwidth: args.bandwidth,
    latency: args.latency,
  };
  const notes = figureNotes(topo, args, plan, run);
  return {
    schemaVersion: 1,
    kind: 'bench-mem',
    time,
    nodes: benchNodes(root, topo),
    settings: { ...settings, loadAverage: { start, end: loadAverage(root) } },
    options,
    cpuNodes: plan.rows.map((r) => r.node),
    memNodes: plan.cols,
    stream: { llcBytes: plan.llcBytes, arrayToCache: plan.arrayToCache, ruleMet: plan.ruleMet },
    bandwidth: run.bandwidth,
    latency: run.latency,
    loadedLatency: run.loadedLatency,
    notes,
    warnings: [...warnings(topo, settings, start), ...topo.warnings],
  };
}
