// Processes grouped by cgroup and cgroups ranked by remote memory: a cgroup's remote memory is
// the sum of its processes' (policy/locality.ts: memory away from where each spends its CPU
// time), its locality the share of its processes' memory that is local. Pure.
import type { CgroupFacts } from '../model/cgroup_numa.js';
import type { ProcessSample } from '../model/stat.js';
import { rankByRemote, type RankedProcess } from './locality.js';

export interface CgroupRow {
  readonly facts: CgroupFacts;
  readonly processes: RankedProcess<ProcessSample>[];
  readonly memoryBytes: number;
  readonly remoteBytes: number;
  /** 1 - remote / memory of its processes; null when they have no memory readable. */
  readonly locality: number | null;
}

export function cgroupRow(facts: CgroupFacts, samples: readonly ProcessSample[]): CgroupRow {
  const processes = rankByRemote(samples);
  const memoryBytes = processes.reduce(
    (s, r) => s + (r.sample.memory.kind === 'ok' ? r.sample.memory.totalBytes : 0),
    0,
  );
  const remoteBytes = processes.reduce((s, r) => s + r.remoteBytes, 0);
  return {
    facts,
    processes,
    memoryBytes,
    remoteBytes,
    locality: memoryBytes > 0 ? 1 - remoteBytes / memoryBytes : null,
  };
}

/** Most remote memory first, then most memory, then path. */
export function rankCgroups(rows: readonly CgroupRow[]): CgroupRow[] {
  return [...rows].sort(
    (a, b) =>
      b.remoteBytes - a.remoteBytes || b.memoryBytes - a.memoryBytes || a.facts.path.localeCompare(b.facts.path),
  );
}

/** A cgroup as top lists it: its processes' memory and remote memory added up. */
export interface CgroupTotals {
  readonly path: string;
  readonly processes: number;
  readonly memoryBytes: number;
  readonly remoteBytes: number;
  readonly locality: number | null;
}

/** Ranked processes added up by cgroup (`cgroupOf`; unknown: "?"), most remote memory first. */
export function cgroupTotals(
  rows: readonly RankedProcess<ProcessSample>[],
  cgroupOf: (pid: number) => string | null,
): CgroupTotals[] {
  const by = new Map<string, { processes: number; memoryBytes: number; remoteBytes: number }>();
  for (const r of rows) {
    const path = cgroupOf(r.sample.pid) ?? '?';
    const t = by.get(path) ?? by.set(path, { processes: 0, memoryBytes: 0, remoteBytes: 0 }).get(path)!;
    t.processes++;
    t.memoryBytes += r.sample.memory.kind === 'ok' ? r.sample.memory.totalBytes : 0;
    t.remoteBytes += r.remoteBytes;
  }
  return [...by]
    .map(([path, t]) => ({ path, ...t, locality: t.memoryBytes > 0 ? 1 - t.remoteBytes / t.memoryBytes : null }))
    .sort((a, b) => b.remoteBytes - a.remoteBytes || b.memoryBytes - a.memoryBytes || a.path.localeCompare(b.path));
}
