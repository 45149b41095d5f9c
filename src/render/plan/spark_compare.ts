// PLAN.md of the Spark plans: the usual recipe (memory = node x 0.85, overhead on top)
// next to this plan's numbers on the smallest node, and why they differ.
import { num } from '../../policy/plan/machine.js';
import { overheadOf, RECIPE_MEMORY_FRACTION, type SparkSizing } from '../../policy/plan/spark_sizing.js';
import { RESERVE_RULE, reserveGiB } from '../../policy/plan/budget.js';
import type { PlanDoc } from './plan_md.js';

const pct = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;

export interface CompareOptions {
  readonly overheadPct: number;
  /** Rows the workload adds (YARN's memory-mb). */
  readonly extra?: string[][];
  /** The machine has one NUMA node: nothing is bound, and there is no other node to fall back to either. */
  readonly oneNode?: boolean;
}

export function recipeCompare(s: SparkSizing, o: CompareOptions): NonNullable<PlanDoc['compare']> {
  const pctOverhead = o.overheadPct;
  const r = s.recipe;
  const mem = r.node.memGiB;
  const daemons = s.daemons.reduce((a, c) => a + c.gib, 0);
  const names = s.daemons.map((c) => c.what).join(' + ');
  const recipeTotal = r.memoryGiB + r.overheadGiB + daemons;
  const planTotal = s.memoryGiB + s.overheadGiB + daemons;
  const sum = (e: number, o: number) => `${e} + ${o}${daemons > 0 ? ` + ${num(daemons)}` : ''}`;
  const rows = [
    ['', `usual recipe (memory = node x ${RECIPE_MEMORY_FRACTION}, overhead on top)`, 'this plan'],
    ['executor memory', r.formulaMemory, `${s.memoryGiB}g: the largest heap that fits the node's budget`],
    [
      'memory overhead',
      r.formulaOverhead,
      `${s.memoryGiB}g x ${pctOverhead}% = ${num((s.memoryGiB * pctOverhead) / 100)} -> ${overheadOf(s.memoryGiB, pctOverhead)}g (rounded up)`,
    ],
    ...(daemons > 0 ? [[names, 'not counted', `${num(daemons)}g`]] : []),
    [
      `committed on node ${r.node.node} (${num(mem)} GiB)`,
      `${sum(r.memoryGiB, r.overheadGiB)} = ${num(recipeTotal)} GiB (${pct(recipeTotal, mem)})`,
      `${sum(s.memoryGiB, s.overheadGiB)} = ${num(planTotal)} GiB (${pct(planTotal, mem)})`,
    ],
    [
      'left for the page cache, the kernel, everything else',
      `${num(mem - recipeTotal)} GiB`,
      `${num(mem - planTotal)} GiB (reserve ${RESERVE_RULE} = ${num(reserveGiB(mem))} GiB)`,
    ],
    ...(o.extra ?? []),
  ];
  const noFallback =
    o.oneNode === true
      ? 'This machine has one NUMA node, so there is no other node to take memory from'
      : "Its executors are bound to their node (numactl --membind, or the kubelet's one-node cpuset), and a bound process whose node fills has no fallback node";
  const insteadOfOther = o.oneNode === true ? '' : " instead of using the other node's memory";
  return {
    title: 'The usual recipe and this plan',
    rows,
    why: [
      `The recipe says to leave 10-15% of the node for the page cache and the OS, then puts a ${pctOverhead}% overhead on top of an 85% heap and breaks its own rule: it commits ${pct(recipeTotal, mem)} of node ${r.node.node}. ${noFallback}: the kernel OOM-kills an executor (after reclaiming the page cache its shuffle files needed)${insteadOfOther}.`,
      `This plan keeps the reserve, counts ${daemons > 0 ? `the ${names} and ` : ''}the overhead against the node, and takes the largest heap that fits: ${r.memoryGiB - s.memoryGiB}g less heap per executor than the recipe, and no OOM kill when the node is busy. Give --memory-fraction to ask for another share; a share that does not fit is lowered to the largest that does, and PLAN.md says so.`,
    ],
  };
}
