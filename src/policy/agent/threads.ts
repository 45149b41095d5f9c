// Threads ranked by CPU over the window, for --granularity threads. Hot: every thread at least
// PEER_SHARE as busy as the busiest (equal workers stay together). When no thread stands out
// (the hot ones use under MIN_HOT_SHARE of the process's CPU: many small threads) every busy
// thread is hot, and there is nothing to split. Hot threads go with the memory; cold ones (GC,
// JIT, I/O helpers) may go to the nearest node with spare CPUs. Pure.
import type { ThreadUse } from '../../model/stat.js';
import type { ProcessMemory } from '../../model/stat.js';

export const PEER_SHARE = 0.5;
export const MIN_HOT_SHARE = 1 / 3;

export interface ThreadRank {
  /** Busiest first. */
  readonly hot: readonly ThreadUse[];
  readonly cold: readonly ThreadUse[];
  /** CPUs used over the window. */
  readonly hotCpu: number;
  readonly coldCpu: number;
}

export function rankThreads(use: readonly ThreadUse[], windowSeconds: number): ThreadRank {
  const sorted = [...use].sort((a, b) => b.seconds - a.seconds || a.tid - b.tid);
  const total = sorted.reduce((s, t) => s + t.seconds, 0);
  if (total <= 0 || windowSeconds <= 0) return { hot: [], cold: sorted, hotCpu: 0, coldCpu: 0 };
  const top = sorted[0]!.seconds;
  let n = sorted.findIndex((t) => t.seconds < PEER_SHARE * top);
  if (n < 0) n = sorted.length;
  let hot = sorted.slice(0, n).reduce((s, t) => s + t.seconds, 0);
  if (hot < MIN_HOT_SHARE * total) {
    n = sorted.findIndex((t) => t.seconds <= 0);
    if (n < 0) n = sorted.length;
    hot = total;
  }
  return {
    hot: sorted.slice(0, n),
    cold: sorted.slice(n),
    hotCpu: hot / windowSeconds,
    coldCpu: (total - hot) / windowSeconds,
  };
}

/** Node id -> CPU seconds of these threads (by the node they last ran on). */
export function secondsByNode(threads: readonly ThreadUse[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of threads)
    if (t.node !== null && t.seconds > 0) out[String(t.node)] = (out[String(t.node)] ?? 0) + t.seconds;
  return out;
}

/** Share of the memory local to these threads, weighted by their CPU; null without CPU or memory. */
export function threadsLocality(threads: readonly ThreadUse[], memory: ProcessMemory): number | null {
  if (memory.kind !== 'ok' || memory.totalBytes === 0) return null;
  let cpu = 0;
  let sum = 0;
  for (const t of threads) {
    if (t.node === null || t.seconds <= 0) continue;
    cpu += t.seconds;
    sum += t.seconds * ((memory.nodes[String(t.node)]?.totalBytes ?? 0) / memory.totalBytes);
  }
  return cpu > 0 ? sum / cpu : null;
}
