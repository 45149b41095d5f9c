// Every plan checks its own arithmetic against the node: what it commits on each node (heaps,
// overheads, daemons) stays within the node's MemTotal minus a reserve for the page cache, the
// kernel and everything else on the host. Under a bind policy a full node has no fallback (the
// kernel OOM-kills rather than use another node's memory), so no plan crosses that line.
import { num } from './machine.js';
import type {
  Commitment,
  Derivation,
  MachineShare,
  MemoryPlan,
  MemPolicyKind,
  NodeMemory,
  NodeShare,
} from './types.js';

export const RESERVE_SHARE = 0.1;
export const RESERVE_MIN_GIB = 2;
export const RESERVE_RULE = `max(${RESERVE_SHARE * 100}% of MemTotal, ${RESERVE_MIN_GIB} GiB)`;

export function reserveGiB(memGiB: number): number {
  return Math.max(memGiB * RESERVE_SHARE, RESERVE_MIN_GIB);
}

/** A server's memory beside its main region (a database's pool, a JVM's heap): this share of it ... */
export const BESIDE_SHARE = 0.1;
/** ... and at least this much. */
export const BESIDE_MIN_GIB = 1;

/** What a process commits: its main region and its own memory beside it (BESIDE_SHARE, at least BESIDE_MIN_GIB). */
export interface Committed {
  readonly mainGiB: number;
  readonly besideGiB: number;
  readonly committed: number;
  /** "pool 48 GiB + server 4.8 GiB (10% of the pool, at least 1) = 52.8 GiB" with `names` { main: 'pool', beside: 'server' }. */
  readonly formula: string;
  /** The plan's derivation of it: `names.what`, the formula, the committed GiB. */
  readonly derivation: Derivation;
}

/** The main region plus the process's memory beside it: main + 10%, at least 1 GiB. */
export function committedWith(
  mainGiB: number,
  names: { readonly what: string; readonly main: string; readonly beside: string },
): Committed {
  const besideGiB = Math.max(BESIDE_MIN_GIB, mainGiB * BESIDE_SHARE);
  const committed = mainGiB + besideGiB;
  const formula = `${names.main} ${num(mainGiB)} GiB + ${names.beside} ${num(besideGiB)} GiB (${BESIDE_SHARE * 100}% of the ${names.main}, at least ${BESIDE_MIN_GIB}) = ${num(committed)} GiB`;
  return {
    mainGiB,
    besideGiB,
    committed,
    formula,
    derivation: { what: names.what, formula, value: `${num(committed)} GiB` },
  };
}

/** What a plan may commit on a node: MemTotal - reserve (negative on a node under 2.2 GiB). */
export function budgetGiB(memGiB: number): number {
  return memGiB - reserveGiB(memGiB);
}

/** "max(96 x 10% = 9.6, 2) = 9.6 GiB; 96 - 9.6 = 86.4 GiB" */
export function budgetFormula(memGiB: number): string {
  return `reserve max(${num(memGiB)} x ${RESERVE_SHARE * 100}% = ${num(memGiB * RESERVE_SHARE)}, ${RESERVE_MIN_GIB}) = ${num(reserveGiB(memGiB))} GiB; ${num(memGiB)} - ${num(reserveGiB(memGiB))} = ${num(budgetGiB(memGiB))} GiB`;
}

/** A node's budget in words, for refusals: "node 0: MemTotal 96 GiB - reserve 9.6 GiB = 86.4 GiB". */
export function budgetText(node: number, memGiB: number): string {
  const b = budgetGiB(memGiB);
  return b > 0
    ? `node ${node}: MemTotal ${num(memGiB)} GiB - reserve ${num(reserveGiB(memGiB))} GiB = ${num(b)} GiB`
    : `node ${node}: MemTotal ${num(memGiB)} GiB is not more than its reserve (${num(reserveGiB(memGiB))} GiB, ${RESERVE_RULE}): nothing can be committed there`;
}

/**
 * The nodes an interleaved commitment can be spread over evenly: the most nodes (largest
 * budgets first) whose every budget holds an equal share; null when not even one holds it all.
 */
export function interleaveSet(nodes: readonly NodeShare[], committedGiB: number): NodeShare[] | null {
  const byBudget = [...nodes].sort((a, b) => budgetGiB(b.memGiB) - budgetGiB(a.memGiB) || a.node - b.node);
  for (let k = byBudget.length; k >= 1; k--) {
    const set = byBudget.slice(0, k);
    if (committedGiB / k <= budgetGiB(set[k - 1]!.memGiB) + 1e-9) return set.sort((a, b) => a.node - b.node);
  }
  return null;
}

const EPSILON = 1e-9;

/**
 * The memory plan of a decision: per usable node, what is committed there. Throws (a planner
 * bug, exit 70) when a node's commitment is over its budget: planners size or refuse first.
 */
export function memoryPlan(
  m: MachineShare,
  per: ReadonlyMap<number, { items: Commitment[]; policy: MemPolicyKind }>,
  unknown: string | null = null,
): MemoryPlan {
  const nodes = m.usable.map((s: NodeShare) => {
    const p = per.get(s.node) ?? { items: [], policy: 'none' as const };
    const committedGiB = p.items.reduce((a, c) => a + c.gib, 0);
    const n: NodeMemory = {
      node: s.node,
      memGiB: s.memGiB,
      freeGiB: s.freeGiB,
      reserveGiB: reserveGiB(s.memGiB),
      budgetGiB: budgetGiB(s.memGiB),
      items: p.items,
      committedGiB,
      policy: p.policy,
    };
    // A node under the reserve has a negative budget; committing nothing there is not over it.
    if (committedGiB > EPSILON && committedGiB > n.budgetGiB + EPSILON)
      throw new Error(
        `plan commits ${num(committedGiB)} GiB on node ${s.node}, over its budget of ${num(n.budgetGiB)} GiB`,
      );
    return n;
  });
  return { nodes, unknown };
}

/** The same commitments on every listed node. */
export function onNodes(
  nodes: readonly number[],
  items: Commitment[],
  policy: MemPolicyKind,
): Map<number, { items: Commitment[]; policy: MemPolicyKind }> {
  return new Map(nodes.map((n) => [n, { items, policy }]));
}
