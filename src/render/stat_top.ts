// `numakit top`: one screen of the live view, as lines no wider than the terminal. Nodes with
// a memory-use bar and allocation rates; then processes by memory on nodes they do not run on,
// with locality. The command adds the cursor movement; this is pure text.
import type { CgroupTotals } from '../policy/cgroup_rank.js';
import type { AccessLocality } from '../model/access_locality.js';
import type { ProcessDetail } from '../model/process_detail.js';
import { formatAccess } from '../policy/access_locality.js';
import type { ProcessSample } from '../model/stat.js';
import type { RankedProcess } from '../policy/locality.js';
import { HELP_LINES, INITIAL_VIEW, statusLine, type TopView } from './top_view.js';
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
  /** Pages promoted into / demoted out of the node per second (nodeN/vmstat); absent where the kernel has no such counters. */
  readonly promoteRate?: number | null;
  readonly demoteRate?: number | null;
}

export interface TopFrame {
  readonly time: string;
  readonly intervalSeconds: number;
  readonly nodes: readonly TopNode[];
  readonly procs: readonly RankedProcess<ProcessSample>[];
  readonly processCount: number;
  readonly width: number;
  readonly height: number;
  /** Sort, filter, selection, drill-down and help (default: the list by remote memory). */
  readonly view?: TopView;
  /** The process drilled into, read now; null when it is gone. */
  readonly detail?: ProcessDetail | null;
  /** With the view grouped (g): cgroups with their processes added up, in rank order. */
  readonly cgroups?: readonly CgroupTotals[];
  /** Access locality of the processes shown (pid -> it), from NUMA-balancing faults. */
  readonly access?: ReadonlyMap<number, AccessLocality>;
}

const rate = (v: number | null) => (v === null ? '-' : v >= 10000 ? `${Math.round(v / 1000)}k` : String(Math.round(v)));

export function bar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, fraction));
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
}

function nodeLines(f: TopFrame): string[] {
  const barW = Math.max(10, Math.min(30, f.width - 70));
  const tiers = f.nodes.some((n) => n.promoteRate !== undefined || n.demoteRate !== undefined);
  const head = `NODE ${'MEMORY USED'.padEnd(barW + 2)}  USE%        USED/TOTAL    HIT/s   MISS/s  FRGN/s  OTHER/s${tiers ? '  PROMO/s  DEMO/s' : ''}`;
  const lines = [head];
  for (const n of f.nodes) {
    const used = n.totalBytes !== null && n.freeBytes !== null ? n.totalBytes - n.freeBytes : null;
    const frac = used !== null && n.totalBytes ? used / n.totalBytes : 0;
    const pct = used === null ? '   ?' : `${String(Math.round(frac * 100)).padStart(3)}%`;
    const amount = `${formatBytes(used)}/${formatBytes(n.totalBytes)}`;
    lines.push(
      `${String(n.id).padStart(4)} ${bar(frac, barW)}  ${pct} ${amount.padStart(17)} ${rate(n.hitRate).padStart(8)} ${rate(n.missRate).padStart(8)} ${rate(n.foreignRate).padStart(7)} ${rate(n.otherRate).padStart(8)}${tiers ? ` ${rate(n.promoteRate ?? null).padStart(8)} ${rate(n.demoteRate ?? null).padStart(7)}` : ''}`,
    );
  }
  return lines;
}

function procLine(r: RankedProcess<ProcessSample>, selected: boolean, access: AccessLocality | undefined): string {
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
  return `${selected ? '>' : ' '}${String(p.pid).padStart(7)} ${p.comm.slice(0, 15).padEnd(15)} ${mem.padStart(9)} ${formatBytes(r.remoteBytes).padStart(9)} ${formatLocality(r.locality).padStart(8)} ${formatAccess(access).padStart(6)}  ${ran.padEnd(7)} ${per}`;
}

const bytesPerNode = (nodes: Readonly<Record<string, number>>) =>
  Object.entries(nodes)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([n, b]) => `${n}:${formatBytes(b).replace(' ', '')}`)
    .join(' ');

/** The drill-down: threads (CPU, node), then mappings by size with their memory per node. */
/** "access locality 0.25 (NUMA-balancing faults by node of the memory: 0:12 1:36)", or why not. */
export function accessLine(a: AccessLocality | undefined): string {
  if (a === undefined) return 'access locality: not read';
  if (a.kind !== 'ok') return `access locality: not available: ${a.why}`;
  const by = Object.entries(a.nodes)
    .sort(([x], [y]) => Number(x) - Number(y))
    .map(([n, f]) => `${n}:${f}`)
    .join(' ');
  const what = a.source === 'pmu' ? 'DRAM accesses sampled by the PMU' : 'NUMA-balancing faults';
  return `access locality ${a.local.toFixed(2)} (${what} by node of the memory: ${by})`;
}

function detailLines(f: TopFrame, pid: number, room: number): string[] {
  const d = f.detail;
  if (!d) return [`process ${pid} is gone   Esc: back`];
  const lines = [
    `process ${d.pid} (${d.comm})  cgroup ${d.cgroup ?? '?'}  ${d.threads.length} thread(s)   Esc: back`,
    accessLine(f.access?.get(d.pid)),
    '',
    '    TID COMM            STATE  CPU  NODE  CPU TIME',
  ];
  const threadRoom = Math.max(1, Math.floor((room - 6) / 2));
  for (const t of d.threads.slice(0, threadRoom))
    lines.push(
      `${String(t.tid).padStart(7)} ${t.comm.slice(0, 15).padEnd(15)} ${t.state.padEnd(5)} ${String(t.cpu).padStart(4)} ${String(t.node ?? '?').padStart(5)}  ${t.cpuSeconds.toFixed(2)}s`,
    );
  if (d.threads.length > threadRoom) lines.push(`        ... ${d.threads.length - threadRoom} more thread(s)`);
  lines.push('', 'MAPPING            MEMORY  POLICY          PER NODE      WHAT');
  if (d.mappings === null) lines.push(`  mappings not readable: ${d.mappingsWhy}`);
  else
    for (const m of d.mappings.slice(0, Math.max(1, room - lines.length)))
      lines.push(
        `${m.address.padEnd(16)} ${formatBytes(m.totalBytes).padStart(8)}  ${m.policy.slice(0, 14).padEnd(14)}  ${bytesPerNode(m.nodes).padEnd(12)}  ${m.what}`,
      );
  return lines;
}

/** The screen as lines, each cut to the width, at most `height` lines. */
export function renderTopFrame(f: TopFrame): string[] {
  const v = f.view ?? INITIAL_VIEW;
  const title = `numakit top  ${f.time}  every ${f.intervalSeconds}s  ${f.processCount} processes`;
  const lines = [title, statusLine(v)];
  if (v.help) lines.push('', ...HELP_LINES);
  else if (v.drill !== null) lines.push('', ...detailLines(f, v.drill, f.height - 3));
  else if (v.group === true) {
    lines.push('', ...nodeLines(f), '', '   PROCS    MEMORY    REMOTE LOCALITY  CGROUP');
    const rows = f.cgroups ?? [];
    const room = Math.max(0, f.height - lines.length);
    const first = Math.max(0, v.selected - room + 1);
    rows
      .slice(first, first + room)
      .forEach((c, i) =>
        lines.push(
          `${first + i === v.selected ? '>' : ' '}${String(c.processes).padStart(7)} ${formatBytes(c.memoryBytes).padStart(9)} ${formatBytes(c.remoteBytes).padStart(9)} ${formatLocality(c.locality).padStart(8)}  ${c.path}`,
        ),
      );
  } else {
    lines.push(
      '',
      ...nodeLines(f),
      '',
      `     PID COMM               MEMORY    REMOTE LOCALITY ACCESS  RAN ON  MEMORY PER NODE`,
    );
    const room = Math.max(0, f.height - lines.length);
    // The selected row stays on screen: the list scrolls under it.
    const first = Math.max(0, v.selected - room + 1);
    f.procs
      .slice(first, first + room)
      .forEach((r, i) => lines.push(procLine(r, first + i === v.selected, f.access?.get(r.sample.pid))));
  }
  return lines.slice(0, f.height).map((l) => l.slice(0, f.width));
}
