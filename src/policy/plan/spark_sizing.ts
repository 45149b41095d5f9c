// One Spark executor per NUMA node, sized from that node alone (field report 000):
//   cores    = physical cores of the node x 0.8, rounded, at least 1 (room for OS, GC, shuffle)
//   memory   = node memory x 0.85, rounded to whole GiB (room for page cache)
//   overhead = memory x 10-15 %, whole GiB, at least 1 (off-heap, Netty, compression)
// Shared by spark-standalone, spark-yarn and spark-k8s.
import { UsageError } from '../../model/errors.js';
import { num } from './machine.js';
import type { Derivation, MachineShare, NodeShare } from './types.js';

export interface SparkSizingOptions {
  readonly coresFraction: number;
  readonly memoryFraction: number;
  /** Percent of executor memory, 10..20. */
  readonly overheadPct: number;
  /** Hosts of this shape in the cluster (for cluster-wide totals). */
  readonly hosts: number;
}

export const SPARK_SIZING_DEFAULTS: SparkSizingOptions = { coresFraction: 0.8, memoryFraction: 0.85, overheadPct: 15, hosts: 1 };

export interface ExecutorSize {
  readonly share: NodeShare;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly overheadGiB: number;
}

export interface SparkSizing {
  readonly executors: ExecutorSize[];
  /** App-wide values (one spark.executor.* for every executor): the smallest node's. */
  readonly cores: number;
  readonly memoryGiB: number;
  readonly overheadGiB: number;
  /** Executor cores on this host, all nodes together. */
  readonly hostCores: number;
  readonly derivations: Derivation[];
  readonly notes: string[];
}

function sizeOne(s: NodeShare, o: SparkSizingOptions, d: Derivation[]): ExecutorSize {
  const rawCores = s.physicalCores * o.coresFraction;
  const cores = Math.max(1, Math.round(rawCores));
  const rawMem = s.memGiB * o.memoryFraction;
  const memoryGiB = Math.max(1, Math.round(rawMem));
  const rawOver = (memoryGiB * o.overheadPct) / 100;
  const overheadGiB = Math.max(1, Math.round(rawOver));
  const n = `node ${s.node}`;
  d.push({ what: `${n} executor cores`, formula: `${s.physicalCores} physical cores x ${o.coresFraction} = ${num(rawCores)} -> ${cores}`, value: `${cores}` });
  d.push({ what: `${n} executor memory`, formula: `${num(s.memGiB)} GiB x ${o.memoryFraction} = ${num(rawMem)} -> ${memoryGiB}g`, value: `${memoryGiB}g` });
  d.push({ what: `${n} memory overhead`, formula: `${memoryGiB}g x ${o.overheadPct}% = ${num(rawOver)} -> ${overheadGiB}g`, value: `${overheadGiB}g` });
  const total = memoryGiB + overheadGiB;
  const pct = Math.round((total / s.memGiB) * 100);
  d.push({ what: `${n} executor + overhead`, formula: `${memoryGiB}g + ${overheadGiB}g = ${total}g of ${num(s.memGiB)} GiB (${pct}%)`, value: `${total}g` });
  if (total > s.memGiB) {
    throw new UsageError(`spark: executor ${memoryGiB}g + overhead ${overheadGiB}g = ${total}g does not fit node ${s.node} (${num(s.memGiB)} GiB); lower --memory-fraction or --overhead`);
  }
  return { share: s, cores, memoryGiB, overheadGiB };
}

function appWide(executors: ExecutorSize[], d: Derivation[], notes: string[]): { cores: number; memoryGiB: number; overheadGiB: number } {
  const pick = (what: string, key: 'cores' | 'memoryGiB' | 'overheadGiB', unit: string): number => {
    const vals = executors.map((e) => e[key]);
    const v = Math.min(...vals);
    const formula = new Set(vals).size === 1 ? `the same on every node = ${v}${unit}` : `min(${vals.map((x) => `${x}${unit}`).join(', ')}) = ${v}${unit}`;
    d.push({ what, formula, value: `${v}${unit}` });
    return v;
  };
  const out = { cores: pick('spark.executor.cores', 'cores', ''), memoryGiB: pick('spark.executor.memory', 'memoryGiB', 'g'), overheadGiB: pick('spark.executor.memoryOverhead', 'overheadGiB', 'g') };
  if (new Set(executors.map((e) => `${e.cores}/${e.memoryGiB}`)).size > 1) {
    notes.push('The nodes differ in size; Spark has one executor size per application, so the app-wide values are the smallest node\'s and the larger nodes keep some room unused.');
  }
  return out;
}

export function sizeSparkExecutors(machine: MachineShare, o: SparkSizingOptions): SparkSizing {
  if (machine.usable.length === 0) throw new UsageError('spark: no NUMA node has both CPUs and memory; nothing to plan');
  const derivations: Derivation[] = [];
  const notes: string[] = [];
  const executors = machine.usable.map((s) => sizeOne(s, o, derivations));
  const wide = appWide(executors, derivations, notes);
  const hostCores = wide.cores * executors.length;
  derivations.push({ what: 'executor cores on this host (worker cores)', formula: `${executors.map(() => wide.cores).join(' + ')} = ${hostCores}`, value: `${hostCores}` });
  return { executors, ...wide, hostCores, derivations, notes };
}
