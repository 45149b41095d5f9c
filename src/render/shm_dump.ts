// numactl's --dump and --dump-nodes output for a shared memory range (numactl shm.c dump_shm,
// dump_shm_nodes): one line per run of pages with the same policy (or node), offsets from the
// start of the segment or file in 16 hex digits. Pure.
import { MODE_NAMES } from '../model/mempolicy_names.js';

/** A run of pages [start, end) (bytes from the start of the range) with one value. */
export interface PageRun<T> {
  readonly start: number;
  readonly end: number;
  readonly value: T;
}

export interface RangePolicy {
  readonly mode: number;
  readonly nodes: readonly number[];
}

/** Folds per-page values into runs of equal ones; `pageSize` apart, starting at 0. */
export function pageRuns<T>(values: Iterable<T>, pageSize: number, same: (a: T, b: T) => boolean): PageRun<T>[] {
  const runs: PageRun<T>[] = [];
  let start = 0;
  let at = 0;
  let current: { value: T } | undefined;
  for (const value of values) {
    if (current !== undefined && !same(current.value, value)) {
      runs.push({ start, end: at, value: current.value });
      start = at;
    }
    if (current === undefined || start === at) current = { value };
    at += pageSize;
  }
  if (current !== undefined) runs.push({ start, end: at, value: current.value });
  return runs;
}

export const samePolicy = (a: RangePolicy, b: RangePolicy): boolean =>
  a.mode === b.mode && a.nodes.length === b.nodes.length && a.nodes.every((n, i) => n === b.nodes[i]);

const hex = (n: number) => n.toString(16).padStart(16, '0');

/** --dump: runs under the default policy are left out, as numactl leaves them. */
export function renderPolicyDump(runs: readonly PageRun<RangePolicy>[], offset: number): string {
  return runs
    .filter((r) => r.value.mode !== 0)
    .map(
      (r) =>
        `${hex(offset + r.start)}-${hex(offset + r.end)}: ${MODE_NAMES[r.value.mode] ?? `[${r.value.mode}]`} : ${r.value.nodes.map((n) => `${n} `).join('')}\n`,
    )
    .join('');
}

/** --dump-nodes. */
export function renderNodeDump(runs: readonly PageRun<number>[], offset: number): string {
  return runs.map((r) => `${hex(offset + r.start)}-${hex(offset + r.end)}: ${r.value}\n`).join('');
}
