// `numakit top`: one screen of the live view, as lines no wider than the terminal. Nodes with
// a memory-use bar and allocation rates; then processes by memory on nodes they do not run on,
// with locality. The command adds the cursor movement; this is pure text.
import type { ProcessSample } from '../model/stat.js';
import type { RankedProcess } from '../policy/locality.js';
import { formatLocality } from './stat_procs.js';
import { formatBytes } from './units.js';

export interface TopNode {
  readonly id: number;
  readonly totalBytes: number | null;
  readonly freeBytes: number | null;
  /** Pages per second since the last frame; null on the first frame. */
  readonly hitRate: number | null;
  readonly missRate: number | null;
  readonly foreignRate: number | null;
  readonly otherRate: number | null;
}

export interface TopFrame {
  readonly time: string;
  readonly intervalSeconds: number;
  readonly nodes: readonly TopNode[];
  readonly procs: readonly RankedProcess<ProcessSample>[];
  readonly processCount: number;
  readonly width: number;
  readonly height: number;
}

const rate = (v: number | null) => (v === null ? '-' : v >= 10000 ? `${Math.round(v / 1000)}k` : String(Math.round(v)));

export function bar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
}

function nodeLines(f: TopFrame): string[] {
  const barW = Math.max(10, Math.min(30, f.width - 70));
  const head = `NODE ${'MEMORY USED'.padEnd(barW + 2)}  USE%        USED/TOTAL    HIT/s   MISS/s  FRGN/s  OTHER/s`;
  const lines = [head];
  for (const n of f.nodes) {
    const used = n.totalBytes !== null && n.freeBytes !== null ? n.totalBytes - n.freeBytes : null;
    const frac = used !== null && n.totalBytes ? used / n.totalBytes : 0;
    const pct = used === null ? '   ?' : `${String(Math.round(frac * 100)).padStart(3)}%`;
    const amount = `${formatBytes(used)}/${formatBytes(n.totalBytes)}`;
    lines.push(
      `${String(n.id).padStart(4)} ${bar(frac, barW)}  ${pct} ${amount.padStart(17)} ${rate(n.hitRate).padStart(8)} ${rate(n.missRate).padStart(8)} ${rate(n.foreignRate).padStart(7)} ${rate(n.otherRate).padStart(8)}`,
    );
  }
  return lines;
}

function procLine(r: RankedProcess<ProcessSample>): string {
  const p = r.sample;
  const mem = p.memory.kind === 'ok' ? formatBytes(p.memory.totalBytes) : 'no perm';
  const ran =
    Object.entries(p.cpuNodes)
      .filter(([, s]) => s > 0)
      .map(([n]) => n)
      .join(',') || (p.lastNodes.length ? `(${p.lastNodes.join(',')})` : '-');
  const per =
    p.memory.kind === 'ok'
      ? Object.entries(p.memory.nodes)
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([n, m]) => `${n}:${formatBytes(m.totalBytes).replace(' ', '')}`)
          .join(' ')
      : '';
  return `${String(p.pid).padStart(7)} ${p.comm.slice(0, 15).padEnd(15)} ${mem.padStart(9)} ${formatBytes(r.remoteBytes).padStart(9)} ${formatLocality(r.locality).padStart(8)}  ${ran.padEnd(7)} ${per}`;
}

/** The screen as lines, each cut to the width, at most `height` lines. */
export function renderTopFrame(f: TopFrame): string[] {
  const title = `numakit top  ${f.time}  every ${f.intervalSeconds}s  ${f.processCount} processes   q: quit`;
  const lines = [
    title,
    '',
    ...nodeLines(f),
    '',
    `    PID COMM               MEMORY    REMOTE LOCALITY  RAN ON  MEMORY PER NODE`,
  ];
  const room = Math.max(0, f.height - lines.length);
  for (const r of f.procs.slice(0, room)) lines.push(procLine(r));
  return lines.slice(0, f.height).map((l) => l.slice(0, f.width));
}
