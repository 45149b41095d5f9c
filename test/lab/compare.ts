// Projections that make numakit's output comparable with numactl's and hwloc's. Pure; see
// compare.test.ts. A lab test asserts deepStrictEqual/equal on these, so a mismatch prints a diff.
import type { HwlocNuma } from './hwloc_xml.js';

/** The subset of `numakit topo --json` that the lab compares (schemaVersion 1). */
export interface TopoJson {
  readonly schemaVersion: number;
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly cpus: readonly number[];
    readonly memTotalBytes: number;
    readonly memFreeBytes: number;
    readonly distances: Readonly<Record<string, number>>;
  }>;
}

export interface NumaFacts {
  readonly id: number;
  readonly cpus: readonly number[];
  readonly memTotalBytes: number;
  readonly distances: readonly number[];
}

const FREE_LINE = /^node (\d+) free: (\d+) MB$/;

/**
 * `candidate` with each "node N free: X MB" line replaced by `reference`'s when the two differ by
 * at most `toleranceMb` (memory that changed between the two reads); every other line untouched.
 */
export function alignFreeLines(reference: string, candidate: string, toleranceMb: number): string {
  const refFree = new Map<string, number>();
  for (const line of reference.split('\n')) {
    const m = FREE_LINE.exec(line);
    if (m?.[1]) refFree.set(m[1], Number(m[2]));
  }
  return candidate
    .split('\n')
    .map((line) => {
      const m = FREE_LINE.exec(line);
      const ref = m?.[1] !== undefined ? refFree.get(m[1]) : undefined;
      return m && ref !== undefined && Math.abs(Number(m[2]) - ref) <= toleranceMb
        ? line.replace(/free: \d+ MB/, `free: ${ref} MB`)
        : line;
    })
    .join('\n');
}

export function factsFromTopoJson(j: TopoJson): NumaFacts[] {
  const ids = j.nodes.map((n) => n.id);
  return j.nodes.map((n) => ({
    id: n.id,
    cpus: [...n.cpus],
    memTotalBytes: n.memTotalBytes,
    distances: ids.map((b) => n.distances[String(b)] ?? NaN),
  }));
}

/**
 * hwloc's NUMA facts. hwloc gives a CPU-less (memory-only) node the cpuset of its locality (its
 * HMAT initiator's CPUs, else the whole machine) where the kernel lists no CPUs: such a node,
 * named in `cpuLess` with the locality expected, becomes `cpus: []` when hwloc shows exactly that
 * locality, and keeps hwloc's cpuset otherwise (so the mismatch shows in the diff).
 */
export function factsFromHwloc(h: HwlocNuma, cpuLess: ReadonlyMap<number, readonly number[]> = new Map()): NumaFacts[] {
  const ids = h.nodes.map((n) => n.id);
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return h.nodes.map((n) => ({
    id: n.id,
    cpus: cpuLess.has(n.id) && same(n.cpus, cpuLess.get(n.id) ?? []) ? [] : [...n.cpus],
    memTotalBytes: n.memTotalBytes,
    distances: ids.map((b) => h.distances?.[n.id]?.[b] ?? NaN),
  }));
}

/** A topo --json document with free memory (which changes between any two reads) removed. */
export function withoutFreeMemory(j: unknown): unknown {
  return JSON.parse(JSON.stringify(j), (key: string, value: unknown) => (key === 'memFreeBytes' ? undefined : value));
}

export interface NumactlFacts {
  readonly cpus: Readonly<Record<number, readonly number[]>>;
  readonly distances: readonly (readonly number[])[];
}

/** The "node N cpus:" lines and the distance matrix of `numactl --hardware`. */
export function parseNumactlHardware(text: string): NumactlFacts {
  const cpus: Record<number, number[]> = {};
  const distances: number[][] = [];
  let inMatrix = false;
  for (const line of text.split('\n')) {
    const c = /^node (\d+) cpus:(.*)$/.exec(line);
    if (c?.[1]) cpus[Number(c[1])] = (c[2] ?? '').trim().split(/\s+/).filter(Boolean).map(Number);
    if (line.startsWith('node distances:')) inMatrix = true;
    const row = /^\s*\d+:\s+(.*)$/.exec(line);
    if (inMatrix && row?.[1]) distances.push(row[1].trim().split(/\s+/).map(Number));
  }
  return { cpus, distances };
}
