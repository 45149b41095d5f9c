// `run --fallback`: where the cpuset forbids the nodes or CPUs asked for, the launch steps down
// instead of failing: a bind becomes a preference for the allowed part of its nodes, then no
// memory policy (CPU binding only), then no CPU binding either (none). Each step is one line
// saying what was dropped and why. Pure: the allowed sets are read by the caller, and a
// kernel's refusal of a rung is passed back in to take the next one.
import { formatCpuList } from '../model/cpuset.js';
import type { PolicyKind } from '../model/run_args.js';

/** A memory policy asked for or stepped down to; `none` sets no policy (the kernel's default). */
export interface MemoryRung {
  readonly kind: PolicyKind | 'none';
  readonly nodes: readonly number[];
}

/**
 * The cpuset's memory nodes and CPUs, each with what holds it for the lines (memsFrom
 * "cgroup /box's cpuset" or "Mems_allowed") and the file read, when a cgroup file said.
 */
export interface AllowedSets {
  readonly mems: readonly number[];
  readonly memsFrom: string;
  readonly memsFile?: string;
  readonly cpus: readonly number[];
  readonly cpusFrom: string;
  readonly cpusFile?: string;
}

/** "cgroup /box's cpuset (0, /sys/fs/cgroup/box/cpuset.mems.effective)" */
function source(from: string, ids: readonly number[], file: string | undefined): string {
  return `${from} (${formatCpuList(ids) || 'none'}${file === undefined ? '' : `, ${file}`})`;
}

function within(ids: readonly number[], allowed: readonly number[]): number[] {
  return ids.filter((i) => allowed.includes(i));
}

/** The rung a policy steps down to with only `nodes` left: binds and preferences become preferences. */
function softer(kind: PolicyKind, nodes: readonly number[]): MemoryRung {
  if (kind === 'interleave' || kind === 'weighted-interleave') return { kind, nodes };
  return { kind: nodes.length === 1 ? 'preferred' : 'preferred-many', nodes };
}

/**
 * The memory rungs from what was asked down to none: the request, then (when part of its nodes
 * is allowed) a softer policy on that part, then none. A request that is already a preference
 * on one node has no middle rung.
 */
export function memoryLadder(kind: PolicyKind, nodes: readonly number[], allowedMems: readonly number[]): MemoryRung[] {
  const rungs: MemoryRung[] = [{ kind, nodes }];
  const left = within(nodes, allowedMems);
  const middle = softer(kind, left);
  const same = middle.kind === kind && middle.nodes.length === nodes.length;
  if (left.length > 0 && !same) rungs.push(middle);
  rungs.push({ kind: 'none', nodes: [] });
  return rungs;
}

/** A rung fits when the cpuset allows all of its nodes. */
export function rungFits(rung: MemoryRung, allowedMems: readonly number[]): boolean {
  return rung.nodes.every((n) => allowedMems.includes(n));
}

export function describeRung(rung: MemoryRung, cpuBinding: boolean): string {
  if (rung.kind === 'none') return cpuBinding ? 'CPU binding only' : 'no memory policy';
  return `--${rung.kind} ${formatCpuList(rung.nodes)}`;
}

function plural(ids: readonly number[], one: string, many: string): string {
  return `${ids.length === 1 ? one : many} ${formatCpuList(ids)}`;
}

/** Why a rung that does not fit was left: the nodes outside the cpuset's memory nodes. */
export function memoryWhy(rung: MemoryRung, a: AllowedSets): string {
  const out = rung.nodes.filter((n) => !a.mems.includes(n));
  return `${plural(out, 'node', 'nodes')} ${out.length === 1 ? 'is' : 'are'} not in ${source(a.memsFrom, a.mems, a.memsFile)}`;
}

/** One stderr line for a step from `from` to `to`. */
export function stepLine(from: string, to: string, why: string): string {
  return `numakit: run: --fallback: ${from} -> ${to}: ${why}\n`;
}

/** The memory rungs taken and the lines for the rungs skipped because the cpuset forbids them. */
export function firstFittingRung(
  ladder: readonly MemoryRung[],
  a: AllowedSets,
  cpuBinding: boolean,
): { index: number; lines: string[] } {
  const lines: string[] = [];
  let i = 0;
  while (i < ladder.length - 1 && !rungFits(ladder[i]!, a.mems)) {
    lines.push(
      stepLine(
        describeRung(ladder[i]!, cpuBinding),
        describeRung(ladder[i + 1]!, cpuBinding),
        memoryWhy(ladder[i]!, a),
      ),
    );
    i++;
  }
  return { index: i, lines };
}

/**
 * The CPUs to bind to, stepped down: all asked when the cpuset allows them, the allowed part
 * when some are (a line naming what was dropped), else none (null, a line). `what` names the
 * request ("--cpunodebind 1", "--physcpubind 2-3").
 */
export function cpuFallback(
  what: string,
  cpus: readonly number[],
  a: AllowedSets,
): { cpus: number[] | null; lines: string[] } {
  const left = within(cpus, a.cpus);
  if (left.length === cpus.length) return { cpus: [...cpus], lines: [] };
  const out = cpus.filter((c) => !a.cpus.includes(c));
  const why = `${plural(out, 'CPU', 'CPUs')} ${out.length === 1 ? 'is' : 'are'} not in ${source(a.cpusFrom, a.cpus, a.cpusFile)}`;
  if (left.length === 0) return { cpus: null, lines: [stepLine(what, 'no CPU binding', why)] };
  return { cpus: left, lines: [stepLine(what, `--physcpubind ${formatCpuList(left)}`, why)] };
}
