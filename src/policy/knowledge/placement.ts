// Where the workload's largest process is placed, for the profiles whose advice depends on it
// (AutoNUMA for a database or a JVM): given with --placement, or detected from the processes.
// Bound: its CPUs are confined to one node, or its cpuset's memory to some of the nodes, or most
// of its memory is under an explicit memory policy (numactl, systemd NUMAPolicy=, numakit run or
// plan: bind, preferred or interleave; AutoNUMA neither scans nor migrates such memory unless
// the policy carries MPOL_F_NUMA_BALANCING, printed "=balancing"). Unpinned: it may run and
// allocate on every node. Pure.
import { UsageError } from '../../model/errors.js';
import { LARGE_PROCESS_BYTES, type MemPolicyShare, type PlacedProcess } from '../../model/placement.js';
import { machineMemoryBytes, type Topology } from '../../model/topology.js';
import { formatBytes } from '../../model/bytes.js';
import { largeProcessBytes } from '../../model/large_process.js';
import { TABLE } from './table.js';
import type { Placement, WorkloadClass } from './types.js';

export interface PlacementInfo {
  readonly value: Placement | null;
  /** class: fixed by what the profile is; given: --placement; plan: the plan binds it; detected; unknown. */
  readonly how: 'class' | 'given' | 'plan' | 'detected' | 'unknown';
  /** One line saying how it was decided, for output. */
  readonly detail: string;
}

export function parsePlacement(v: string | undefined): Placement | undefined {
  if (v === undefined) return undefined;
  if (v === 'bound' || v === 'unpinned') return v;
  throw new UsageError(`--placement ${v}: expected bound or unpinned`);
}

function boundTo(t: Topology, p: PlacedProcess): string | null {
  // Node by CPU id, made once: a search of the CPUs for each allowed CPU is quadratic (3 million steps on 1,792 CPUs).
  const nodeOf = new Map(t.cpus.map((x) => [x.id, x.node]));
  const cpuNodes = new Set((p.cpusAllowed ?? []).map((c) => nodeOf.get(c) ?? null));
  const withCpus = t.nodes.filter((n) => n.cpus.length > 0).length;
  if (p.cpusAllowed !== null && p.cpusAllowed.length > 0 && cpuNodes.size === 1 && withCpus > 1)
    return `its CPUs are on node ${[...cpuNodes][0]} only`;
  const memNodes = t.nodes.filter((n) => (n.memTotalBytes ?? 0) > 0).map((n) => n.id);
  const mems = p.memsAllowed ?? memNodes;
  if (mems.length > 0 && mems.length < memNodes.length)
    return `its cpuset allows memory on node(s) ${mems.join(',')} only`;
  if (p.memPolicy != null && isExplicitPolicy(p.memPolicy))
    return `its memory policy is ${p.memPolicy.text} for ${Math.round(p.memPolicy.share * 100)}% of its resident memory (numactl, systemd NUMAPolicy=, numakit run)`;
  return null;
}

const EXPLICIT = /^(bind|prefer|interleave|weighted interleave)\b/;

/** Most (>= half) of the memory under bind, preferred or interleave without NUMA balancing. */
export function isExplicitPolicy(p: MemPolicyShare): boolean {
  return p.share >= 0.5 && EXPLICIT.test(p.text) && !/=[a-z|]*balancing/.test(p.text);
}

/** The placement of the largest process of 1 GiB (or 5% of a smaller machine's memory) or more; unknown without process data. */
export function detectPlacement(t: Topology, processes: readonly PlacedProcess[] | null, why: string): PlacementInfo {
  // One node: every setting that depends on placement is moot there (resolve.ts), whatever runs.
  if (t.nodes.length <= 1)
    return { value: null, how: 'unknown', detail: 'not needed: one NUMA node, nothing to place' };
  if (processes === null) return { value: null, how: 'unknown', detail: `unknown: ${why}` };
  const min = largeProcessBytes(LARGE_PROCESS_BYTES, machineMemoryBytes(t));
  const big = [...processes].filter((p) => p.totalBytes >= min).sort((x, y) => y.totalBytes - x.totalBytes)[0];
  if (big === undefined)
    return {
      value: null,
      how: 'unknown',
      detail: `unknown: no process of ${formatBytes(min)} or more runs to tell it from`,
    };
  const name = `${big.comm} (pid ${big.pid}, ${formatBytes(big.totalBytes)})`;
  const bound = boundTo(t, big);
  return bound === null
    ? { value: 'unpinned', how: 'detected', detail: `unpinned: the largest process, ${name}, may run on every node` }
    : { value: 'bound', how: 'detected', detail: `bound: the largest process, ${name}: ${bound}` };
}

/**
 * The placement a profile is judged with: fixed by the class (spark, latency: bound;
 * throughput: unpinned), else --placement, else what was detected.
 */
export function choosePlacement(
  klass: WorkloadClass,
  given: Placement | undefined,
  detect: () => PlacementInfo,
): PlacementInfo {
  const fixed = TABLE[klass].placement;
  if (fixed === 'bound' || fixed === 'unpinned') {
    if (given !== undefined && given !== fixed)
      throw new UsageError(
        `--placement ${given}: the ${klass} profile is ${fixed} by definition; --placement is for the profiles whose advice depends on it (general, database, jvm)`,
      );
    return { value: fixed, how: 'class', detail: `${fixed}: the ${klass} profile is ${fixed} by definition` };
  }
  if (fixed === 'any') {
    if (given !== undefined)
      throw new UsageError(`--placement ${given}: the ${klass} profile does not depend on placement`);
    return { value: null, how: 'class', detail: `the ${klass} profile does not depend on placement` };
  }
  if (given !== undefined) return { value: given, how: 'given', detail: `${given}: as given with --placement` };
  return detect();
}
