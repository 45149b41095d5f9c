// jvm and elasticsearch: -XX:+UseNUMA -XX:+AlwaysPreTouch always; one instance per node bound
// to it when the JVM (heap + 10% native, at least 1 GiB) fits the node's budget (budget.ts; and
// for Elasticsearch a heap of at most half the node), else one instance with its memory
// interleaved over the CPU nodes (field report 001: a 48 GiB heap on 2 x 64 GiB nodes); a JVM
// that does not fit interleaved either is refused with the numbers.
import { UsageError } from '../../model/errors.js';
import { instanceNodes } from './choose_node.js';
import { budgetGiB, budgetText, committedWith, interleaveSet, memoryPlan, onNodes } from './budget.js';
import { num, oneNodeNotes } from './machine.js';
import type { DecisionBase, Derivation, MachineShare, MemoryPlan, NodeShare } from './types.js';
import { planTuning } from './tuning.js';

export interface JvmOptions {
  readonly flavour: 'jvm' | 'elasticsearch';
  readonly heapBytes: number;
  readonly instances?: number;
  readonly name: string;
  readonly java: string;
  readonly jar: string | null;
  readonly user: string;
  readonly dataDir: string;
}

export interface JvmInstance {
  readonly node: number;
  readonly cpuList: string;
  readonly index: number;
}

export interface JvmDecision extends DecisionBase {
  readonly kind: 'jvm';
  readonly options: JvmOptions;
  readonly heapGiB: number;
  readonly mode: 'per-node' | 'interleave';
  /** per-node: one per node; interleave: a single entry whose node is the first of the mask. */
  readonly instances: JvmInstance[];
  readonly mask: string;
}

const GiB = 1024 ** 3;

/** Elasticsearch: the heap at most half the memory it runs in; the rest is Lucene's file cache. */
export const ES_HEAP_SHARE = 0.5;

function fitsNode(s: NodeShare, heapGiB: number, committed: number, flavour: JvmOptions['flavour']): boolean {
  return committed <= budgetGiB(s.memGiB) && (flavour !== 'elasticsearch' || heapGiB <= s.memGiB * ES_HEAP_SHARE);
}

function fitFormula(s: NodeShare, heapGiB: number, committed: number, flavour: JvmOptions['flavour']): string {
  const es =
    flavour === 'elasticsearch'
      ? `; heap ${num(heapGiB)} ${heapGiB <= s.memGiB * ES_HEAP_SHARE ? '<=' : '>'} ${ES_HEAP_SHARE * 100}% of ${num(s.memGiB)} GiB`
      : '';
  return `node ${s.node}: ${num(committed)} GiB ${committed <= budgetGiB(s.memGiB) ? '<=' : '>'} budget ${num(budgetGiB(s.memGiB))} GiB${es}`;
}

/** What one JVM commits: its heap, its native memory beside it, and the two together. */
interface JvmSize {
  readonly heapGiB: number;
  readonly nativeGiB: number;
  readonly committed: number;
}

/** Where the instances run: one bound instance per chosen node, or one interleaved over `nodes`. */
interface JvmPlacement {
  readonly fits: boolean;
  readonly nodes: NodeShare[];
  readonly derivation: Derivation;
  readonly notes: string[];
}

function sizeJvm(heapBytes: number): { size: JvmSize; derivation: Derivation } {
  const c = committedWith(heapBytes / GiB, { what: 'JVM memory', main: 'heap', beside: 'native' });
  const { mainGiB: heapGiB, besideGiB: nativeGiB, committed } = c;
  return { size: { heapGiB, nativeGiB, committed }, derivation: c.derivation };
}

function smallestBudget(nodes: readonly NodeShare[]): NodeShare {
  return [...nodes].sort((a, b) => budgetGiB(a.memGiB) - budgetGiB(b.memGiB))[0]!;
}

/**
 * Bound per node when the JVM fits every chosen node, else interleaved over the nodes whose
 * budgets hold an even share; refused when neither works or --instances asks for more than one
 * interleaved instance.
 */
function placeJvm(m: MachineShare, o: JvmOptions, size: JvmSize, chosen: NodeShare[]): JvmPlacement {
  const { heapGiB, nativeGiB, committed } = size;
  const fits = chosen.every((s) => fitsNode(s, heapGiB, committed, o.flavour));
  const derivation = {
    what: 'heap against a node',
    formula: fitFormula(smallestBudget(chosen), heapGiB, committed, o.flavour),
    value: fits ? 'one instance per node, bound' : 'interleave',
  };
  if (!fits && o.instances !== undefined && o.instances > 1)
    throw new UsageError(
      `--instances ${o.instances}: the heap does not fit one node, so the plan is one interleaved instance`,
    );
  if (fits) return { fits, nodes: chosen, derivation, notes: [] };
  const spread = interleaveSet(m.usable, committed);
  if (spread === null) {
    const per = committed / m.usable.length;
    const small = smallestBudget(m.usable);
    throw new UsageError(
      `--heap ${num(heapGiB)} GiB + ${num(nativeGiB)} GiB native = ${num(committed)} GiB does not fit this machine: interleaved it puts ${num(per)} GiB on each of ${m.usable.length} node(s), and ${budgetText(small.node, small.memGiB)}; use a smaller heap`,
    );
  }
  const notes: string[] = [];
  if (spread.length < m.usable.length)
    notes.push(
      `Interleaved over nodes ${spread.map((x) => x.node).join(',')} only: an even share of ${num(committed)} GiB would be over the budget of the smaller nodes.`,
    );
  if (committed <= Math.min(...m.usable.map((s) => budgetGiB(s.memGiB))))
    notes.push(
      `The heap would fit a node's budget but not Elasticsearch's rule of at most ${ES_HEAP_SHARE * 100}% of the memory it runs in, so it is interleaved instead of bound.`,
    );
  return { fits, nodes: spread, derivation, notes };
}

function jvmInstances(o: JvmOptions, p: JvmPlacement): { instances: JvmInstance[]; derivation: Derivation } {
  const instances = p.fits
    ? p.nodes.map((s, index) => ({ node: s.node, cpuList: s.cpuList, index }))
    : [{ node: p.nodes[0]!.node, cpuList: '', index: 0 }];
  const list = p.nodes.map((s) => s.node).join(', ');
  return {
    instances,
    derivation: {
      what: 'instances',
      formula: p.fits
        ? `${o.instances === undefined ? 'one per node' : `--instances ${o.instances}`}: nodes ${list}`
        : `one, interleaved over nodes ${list}`,
      value: `${instances.length}`,
    },
  };
}

/** Heap and native memory on each bound node, or split evenly over the interleaved ones. */
function jvmMemory(m: MachineShare, p: JvmPlacement, size: JvmSize): MemoryPlan {
  const items = [
    { what: 'heap', gib: size.heapGiB },
    { what: 'JVM native', gib: size.nativeGiB },
  ];
  const nodes = p.nodes.map((s) => s.node);
  return memoryPlan(
    m,
    p.fits
      ? onNodes(nodes, items, 'bind')
      : onNodes(
          nodes,
          items.map((c) => ({ what: `${c.what} / ${nodes.length}`, gib: c.gib / nodes.length })),
          'interleave',
        ),
  );
}

export function planJvm(m: MachineShare, o: JvmOptions): JvmDecision {
  const chosen = instanceNodes(m, { workload: o.flavour, instances: o.instances });
  const { size, derivation: sizing } = sizeJvm(o.heapBytes);
  const placement = placeJvm(m, o, size, chosen);
  const { instances, derivation: counted } = jvmInstances(o, placement);
  const notes = [...m.notes, ...placement.notes];
  if (o.flavour === 'elasticsearch' && size.heapGiB > 31)
    notes.push(
      'A heap above about 31 GiB turns compressed object pointers off; Elasticsearch recommends staying below that.',
    );
  notes.push(...oneNodeNotes(m));
  return {
    kind: 'jvm',
    machine: m,
    tuning: planTuning('jvm', m),
    memory: jvmMemory(m, placement, size),
    options: o,
    heapGiB: size.heapGiB,
    mode: placement.fits ? 'per-node' : 'interleave',
    instances,
    mask: placement.nodes.map((s) => s.node).join(','),
    derivations: [sizing, placement.derivation, counted],
    notes,
  };
}
