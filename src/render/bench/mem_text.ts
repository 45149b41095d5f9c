// `numakit bench mem` for people: what ran and under which settings, the bandwidth matrix per
// kernel, idle and loaded latency, and notes. Pure.
import type { BandwidthCell, BenchKernel, LatencyCell, MemResult, Placement } from '../../model/bench.js';
import { renderMatrix } from './matrix.js';
import { renderSettings } from './settings_text.js';

const MiB = 2 ** 20;
const KERNELS: readonly BenchKernel[] = ['read', 'write', 'copy', 'triad'];
const WHAT: Record<BenchKernel, string> = {
  read: 'read (sum of 64-bit words)',
  write: 'write (fill)',
  copy: 'copy (counted 2x, as STREAM)',
  triad: 'triad a = b + s*c (counted 3x)',
};

function sizeLine(r: MemResult): string {
  const o = r.options;
  const parts: string[] = [];
  if (o.bandwidth) {
    const ratio =
      r.stream.arrayToCache === null
        ? 'last-level cache unknown'
        : `${r.stream.arrayToCache.toFixed(1)}x the ${Math.round(r.stream.llcBytes! / MiB)} MiB last-level cache`;
    parts.push(
      `arrays of ${Math.round(o.arrayBytes / MiB)} MiB (${ratio}), best and median of >= ${o.repeats} timed reps after one untimed pass`,
    );
  }
  if (o.latency)
    parts.push(`latency: a ${Math.round(o.latencyBytes / MiB)} MiB random cycle, one pointer per 64-byte line`);
  return `${parts.join('; ')}${o.hugePages ? '; transparent huge pages asked for (MADV_HUGEPAGE)' : ''}\n`;
}

function marks(cells: readonly { cpuNode: number; memNode: number; placement: Placement }[]): string[] {
  const seen = new Set<number>();
  const out: string[] = [];
  for (const c of cells) {
    const p = c.placement;
    if (p.verified || seen.has(p.node)) continue;
    seen.add(p.node);
    const where = Object.entries(p.byNode)
      .map(([n, k]) => `node ${n}: ${k}`)
      .join(', ');
    out.push(
      `* column node ${p.node}: only ${(p.share * 100).toFixed(1)}% of ${p.pages} pages were on node ${p.node} (move_pages: ${where || 'none'}${p.unplaced > 0 ? `, ${p.unplaced} without a node` : ''})`,
    );
  }
  return out;
}

function bandwidth(r: MemResult): string {
  const get = (k: BenchKernel) => (row: number, col: number) => {
    const c = r.bandwidth.find((x) => x.cpuNode === row && x.memNode === col);
    const v = c?.kernels[k];
    return c === undefined || v === undefined ? undefined : { value: v.gbps.best, marked: !c.placement.verified };
  };
  const threads = (row: number) => {
    const c = r.bandwidth.find((x: BandwidthCell) => x.cpuNode === row);
    return `node ${row} (${c?.cpus.length ?? 0} thr)`;
  };
  let out = 'Bandwidth, GB/s (10^9 bytes/s), best rep; rows: CPU node and threads, columns: memory node\n';
  for (const k of KERNELS) {
    if (!r.bandwidth.some((c) => c.kernels[k] !== undefined)) continue;
    out += `${WHAT[k]}\n${renderMatrix({ rows: r.cpuNodes, cols: r.memNodes, cell: get(k), digits: 1, rowLabel: threads })}`;
  }
  return out;
}

function latency(title: string, cells: readonly LatencyCell[], r: MemResult): string {
  if (cells.length === 0) return '';
  const get = (row: number, col: number) => {
    const c = cells.find((x) => x.cpuNode === row && x.memNode === col);
    return c === undefined ? undefined : { value: c.ns.median, marked: !c.placement.verified };
  };
  const rows = r.cpuNodes.filter((n) => cells.some((c) => c.cpuNode === n));
  let out = `${title}\n${renderMatrix({ rows, cols: r.memNodes, cell: get, digits: 1 })}`;
  const load = cells.filter((c) => c.loadGbps !== undefined);
  const traffic = load.map((c) => `${c.cpuNode}->${c.memNode} ${c.loaders} thr ${c.loadGbps!.toFixed(1)} GB/s`);
  if (load.length > 0) out += `  (traffic beside the chase: ${traffic.join(', ')})\n`;
  return out;
}

export function renderMemText(r: MemResult): string {
  let out = `numakit bench mem: ${r.cpuNodes.length} CPU node(s) x ${r.memNodes.length} memory node(s)\n`;
  out += renderSettings(r.settings);
  out += sizeLine(r);
  out += '\n';
  if (r.options.bandwidth) out += `${bandwidth(r)}\n`;
  if (r.options.latency) out += latency('Idle latency, ns per load (median of laps)', r.latency, r);
  if (r.options.loaded)
    out += `\n${latency("Loaded latency, ns per load, while the row's other CPUs stream reads", r.loadedLatency, r)}`;
  const notes = [...marks([...r.bandwidth, ...r.latency]), ...r.notes, ...r.warnings];
  if (notes.length > 0) out += `\n${notes.map((n) => (n.startsWith('*') ? n : `note: ${n}`)).join('\n')}\n`;
  return out;
}
