// One Spark executor per NUMA node, sized from that node alone (field report 000), within the
// node's budget (budget.ts: MemTotal minus max(10%, 2 GiB) for the page cache and the kernel):
//   cores    = physical cores of the node x 0.8, rounded, at least 1 (room for OS, GC, shuffle)
//   overhead = executor memory x 10-20 %, rounded up to whole GiB, at least 1 (off-heap, Netty)
//   memory   = the largest heap with heap + overhead + the node's daemons <= budget; or node
//              memory x --memory-fraction when that fits, else the largest that does (executors
//              are bound with --membind: a node that fills means an OOM kill, not remote memory)
// The report's own recipe (memory = node x 0.85, overhead on top) is kept for comparison: it
// says to leave 10-15% of the node and then commits 98% of it. Shared by spark-standalone,
// spark-yarn and spark-k8s.
import { UsageError } from '../../model/errors.js';
import { budgetFormula, budgetGiB, budgetText } from './budget.js';
import { num } from './machine.js';
import type { Commitment, Derivation, MachineShare, NodeShare } from './types.js';

export interface SparkSizingOptions {
  readonly coresFraction: number;
  /** Share of node memory asked for the heap; null: the largest heap that fits the budget. */
  readonly memoryFraction: number | null;
  /** Percent of executor memory, 10..20. */
  readonly overheadPct: number;
  /** Hosts of this shape in the cluster (for cluster-wide totals). */
  readonly hosts: number;
}

export const SPARK_SIZING_DEFAULTS: SparkSizingOptions = {
  coresFraction: 0.8,
  memoryFraction: null,
  overheadPct: 15,
  hosts: 1,
};
/** Field report 000's recipe, shown next to the plan's numbers. */
export const RECIPE_MEMORY_FRACTION = 0.85;

export interface ExecutorSize {
  readonly share: NodeShare;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly overheadGiB: number;
}

/** The report's recipe on the smallest node, for PLAN.md's comparison. */
export interface Recipe {
  readonly node: NodeShare;
  readonly memoryGiB: number;
  readonly overheadGiB: number;
  readonly formulaMemory: string;
  readonly formulaOverhead: string;
}

export interface SparkSizing {
  readonly executors: ExecutorSize[];
  /** App-wide values (one spark.executor.* for every executor): the smallest node's. */
  readonly cores: number;
  readonly memoryGiB: number;
  readonly overheadGiB: number;
  /** Executor cores on this host, all nodes together. */
  readonly hostCores: number;
  /** Memory the plan's daemons use on every node besides the executor (worker JVM, NodeManager ...). */
  readonly daemons: Commitment[];
  readonly recipe: Recipe;
  readonly derivations: Derivation[];
  readonly notes: string[];
}

export const overheadOf = (memoryGiB: number, pct: number): number =>
  Math.max(1, Math.ceil((memoryGiB * pct) / 100 - 1e-9));

/** The largest whole-GiB heap with heap + overhead + daemons <= budget; 0 when not even 1g fits. */
export function largestHeap(budget: number, pct: number, daemonsGiB: number): number {
  let e = Math.floor(budget);
  while (e >= 1 && e + overheadOf(e, pct) + daemonsGiB > budget + 1e-9) e--;
  return Math.max(0, e);
}

/** What a plan may commit on a node (budget.ts), or a stricter figure of its own (spark-k8s: whole Mi). */
export type BudgetOf = (s: NodeShare) => number;

function memoryOf(
  s: NodeShare,
  o: SparkSizingOptions,
  daemons: Commitment[],
  budgetOf: BudgetOf,
  d: Derivation[],
  notes: string[],
): number {
  const daemonsGiB = daemons.reduce((a, c) => a + c.gib, 0);
  const n = `node ${s.node}`;
  const budget = budgetOf(s);
  const fit = largestHeap(budget, o.overheadPct, daemonsGiB);
  const plus = daemons.map((c) => ` + ${num(c.gib)} (${c.what})`).join('');
  if (fit < 1) {
    throw new UsageError(
      `spark: ${budgetText(s.node, s.memGiB)}; the smallest executor needs ${num(2 + daemonsGiB)} GiB (1 + 1 overhead${plus}) and executors are bound to their node`,
    );
  }
  const largest = `largest E with E + ceil(E x ${o.overheadPct}%)${plus} <= ${num(budget)} GiB`;
  if (o.memoryFraction === null) {
    d.push({
      what: `${n} executor memory`,
      formula: `${largest}: ${fit} + ${overheadOf(fit, o.overheadPct)}${daemons.map((c) => ` + ${num(c.gib)}`).join('')} = ${num(fit + overheadOf(fit, o.overheadPct) + daemonsGiB)}`,
      value: `${fit}g`,
    });
    return fit;
  }
  const raw = s.memGiB * o.memoryFraction;
  const want = Math.max(1, Math.round(raw));
  const wantTotal = want + overheadOf(want, o.overheadPct) + daemonsGiB;
  if (wantTotal <= budget + 1e-9) {
    d.push({
      what: `${n} executor memory`,
      formula: `${num(s.memGiB)} GiB x ${o.memoryFraction} = ${num(raw)} -> ${want}g (${want} + ${overheadOf(want, o.overheadPct)}${plus} = ${num(wantTotal)} <= ${num(budget)} GiB)`,
      value: `${want}g`,
    });
    return want;
  }
  d.push({
    what: `${n} executor memory`,
    formula: `${num(s.memGiB)} GiB x ${o.memoryFraction} = ${num(raw)} -> ${want}g, but ${want} + ${overheadOf(want, o.overheadPct)}${plus} = ${num(wantTotal)} > ${num(budget)} GiB; ${largest}`,
    value: `${fit}g`,
  });
  notes.push(
    `--memory-fraction ${o.memoryFraction} asks for ${want}g executors on node ${s.node}; with their overhead${daemonsGiB > 0 ? ' and daemons' : ''} that is ${num(wantTotal)} GiB, over the node's ${num(budget)} GiB budget. Executors are bound to their node with --membind, where a full node means an OOM kill, not remote memory, so the plan uses the smaller heap ${fit}g.`,
  );
  return fit;
}

function sizeOne(
  s: NodeShare,
  o: SparkSizingOptions,
  daemons: Commitment[],
  budgetOf: BudgetOf,
  d: Derivation[],
  notes: string[],
): ExecutorSize {
  const n = `node ${s.node}`;
  const rawCores = s.physicalCores * o.coresFraction;
  const cores = Math.max(1, Math.round(rawCores));
  d.push({
    what: `${n} executor cores`,
    formula: `${s.physicalCores} physical cores x ${o.coresFraction} = ${num(rawCores)} -> ${cores}`,
    value: `${cores}`,
  });
  d.push({ what: `${n} budget`, formula: budgetFormula(s.memGiB), value: `${num(budgetGiB(s.memGiB))} GiB` });
  const memoryGiB = memoryOf(s, o, daemons, budgetOf, d, notes);
  const overheadGiB = overheadOf(memoryGiB, o.overheadPct);
  d.push({
    what: `${n} memory overhead`,
    formula: `${memoryGiB}g x ${o.overheadPct}% = ${num((memoryGiB * o.overheadPct) / 100)} -> ${overheadGiB}g (rounded up, at least 1g)`,
    value: `${overheadGiB}g`,
  });
  return { share: s, cores, memoryGiB, overheadGiB };
}

function recipeOf(s: NodeShare, pct: number): Recipe {
  const raw = s.memGiB * RECIPE_MEMORY_FRACTION;
  const memoryGiB = Math.max(1, Math.round(raw));
  const rawOver = (memoryGiB * pct) / 100;
  const overheadGiB = Math.max(1, Math.round(rawOver));
  return {
    node: s,
    memoryGiB,
    overheadGiB,
    formulaMemory: `${num(s.memGiB)} x ${RECIPE_MEMORY_FRACTION} = ${num(raw)} -> ${memoryGiB}g`,
    formulaOverhead: `${memoryGiB}g x ${pct}% = ${num(rawOver)} -> ${overheadGiB}g`,
  };
}

function appWide(
  executors: ExecutorSize[],
  d: Derivation[],
  notes: string[],
): { cores: number; memoryGiB: number; overheadGiB: number } {
  const pick = (what: string, key: 'cores' | 'memoryGiB' | 'overheadGiB', unit: string): number => {
    const vals = executors.map((e) => e[key]);
    const v = Math.min(...vals);
    const formula =
      new Set(vals).size === 1
        ? `the same on every node = ${v}${unit}`
        : `min(${vals.map((x) => `${x}${unit}`).join(', ')}) = ${v}${unit}`;
    d.push({ what, formula, value: `${v}${unit}` });
    return v;
  };
  const out = {
    cores: pick('spark.executor.cores', 'cores', ''),
    memoryGiB: pick('spark.executor.memory', 'memoryGiB', 'g'),
    overheadGiB: pick('spark.executor.memoryOverhead', 'overheadGiB', 'g'),
  };
  if (new Set(executors.map((e) => `${e.cores}/${e.memoryGiB}`)).size > 1) {
    notes.push(
      "The nodes differ in size; Spark has one executor size per application, so the app-wide values are the smallest node's and the larger nodes keep some room unused.",
    );
  }
  return out;
}

/** Sizes one executor per usable node; `daemons` is what the plan's own daemons use on every node. */
export function sizeSparkExecutors(
  machine: MachineShare,
  o: SparkSizingOptions,
  daemons: Commitment[],
  budgetOf: BudgetOf = (s) => budgetGiB(s.memGiB),
): SparkSizing {
  if (machine.usable.length === 0)
    throw new UsageError('spark: no NUMA node has both CPUs and memory; nothing to plan');
  const derivations: Derivation[] = [];
  const notes: string[] = [];
  const executors = machine.usable.map((s) => sizeOne(s, o, daemons, budgetOf, derivations, notes));
  const wide = appWide(executors, derivations, notes);
  const hostCores = wide.cores * executors.length;
  derivations.push({
    what: 'executor cores on this host (worker cores)',
    formula: `${executors.map(() => wide.cores).join(' + ')} = ${hostCores}`,
    value: `${hostCores}`,
  });
  const smallest = [...machine.usable].sort((a, b) => a.memGiB - b.memGiB || a.node - b.node)[0]!;
  return { executors, ...wide, hostCores, daemons, recipe: recipeOf(smallest, o.overheadPct), derivations, notes };
}

/** What one node commits: the app-wide executor, its overhead, the daemons. */
export function executorCommitments(s: SparkSizing): Commitment[] {
  return [{ what: 'executor heap', gib: s.memoryGiB }, { what: 'overhead', gib: s.overheadGiB }, ...s.daemons];
}
