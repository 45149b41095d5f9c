// One node of the topology picture: a box with its title (memory-only nodes marked), a memory
// bar (used / free), its CPUs as squares grouped by package and core (threads of a core side
// by side, offline CPUs hatched), and its devices. Ids and classes let the dashboard update the
// bar live: #node-N-mem-used, #node-N-mem-text.
import type { Cpu, Device, NumaNode, Topology } from '../../model/topology.js';
import { formatCpuList } from '../../model/cpuset.js';
import { cacheLines } from '../topo_caches.js';
import { formatBytes } from '../units.js';
import { el, rect, text } from './svg.js';

export const BOX_W = 340;
const PAD = 10;
const CPU = 13;
const GAP = 3;
const LINE = 16;

export interface Placed {
  readonly svg: string;
  readonly height: number;
}

/** Cores of a node (package/die/core), each with its threads sorted, in CPU order. */
export function coresOf(cpus: readonly Cpu[]): Cpu[][] {
  const by = new Map<string, Cpu[]>();
  for (const c of [...cpus].sort((a, b) => a.id - b.id)) {
    const k = `${c.package}/${c.die}/${c.core ?? `cpu${c.id}`}`;
    (by.get(k) ?? by.set(k, []).get(k)!).push(c);
  }
  return [...by.values()];
}

function cpuGrid(cores: Cpu[][], x0: number, y0: number): Placed {
  const parts: string[] = [];
  let x = x0;
  let y = y0;
  for (const core of cores) {
    const w = core.length * (CPU + 1) + 3;
    if (x + w > x0 + BOX_W - 2 * PAD) {
      x = x0;
      y += CPU + 6;
    }
    parts.push(rect(x, y, w, CPU + 4, { class: 'core', rx: 2 }));
    core.forEach((c, i) =>
      parts.push(
        el(
          'rect',
          {
            x: x + 2 + i * (CPU + 1),
            y: y + 2,
            width: CPU,
            height: CPU,
            class: c.online ? 'cpu' : 'cpu offline',
            'data-cpu': c.id,
          },
          el(
            'title',
            {},
            `CPU ${c.id}${c.package !== null ? `, package ${c.package}` : ''}${c.core !== null ? `, core ${c.core}` : ''}${c.l3.length > 0 ? `, L3 shared with CPUs ${formatCpuList(c.l3)}` : ''}${c.online ? '' : ' (offline)'}`,
          ),
        ),
      ),
    );
    // The CPU numbers, drawn (a picture without them cannot be matched to taskset or numactl).
    core.forEach((c, i) =>
      parts.push(
        text(x + 2 + i * (CPU + 1) + CPU / 2, y + 2 + CPU - 3.5, String(c.id), {
          class: 'cpu-id',
          'text-anchor': 'middle',
        }),
      ),
    );
    x += w + GAP;
  }
  return { svg: parts.join(''), height: cores.length === 0 ? 0 : y - y0 + CPU + 6 };
}

export function deviceLabel(d: Device): string {
  const extra =
    d.kind === 'nvme' && d.transport
      ? ` (${d.transport})`
      : typeof d.details.model === 'string'
        ? ` (${d.details.model})`
        : '';
  return `${d.kind === 'net' ? 'NIC' : d.kind === 'nvme' ? 'NVMe' : d.kind === 'gpu' ? 'GPU' : d.kind === 'ib' ? 'IB' : d.kind} ${d.name}${extra}`;
}

function memoryBar(n: NumaNode, x: number, y: number): string {
  const w = BOX_W - 2 * PAD;
  const total = n.memTotalBytes ?? 0;
  const used = total - (n.memFreeBytes ?? total);
  const label = n.memTotalBytes === null ? 'memory unknown' : `${formatBytes(used)} used of ${formatBytes(total)}`;
  return (
    rect(x, y, w, 12, { class: 'mem-free', rx: 2 }) +
    rect(x, y, total > 0 ? Math.round((w * used) / total) : 0, 12, {
      class: 'mem-used',
      id: `node-${n.id}-mem-used`,
      rx: 2,
      'data-width': w,
    }) +
    text(x, y + 26, label, { class: 'mem-text', id: `node-${n.id}-mem-text` })
  );
}

export function nodeBox(t: Topology, n: NumaNode, x: number, y: number): Placed {
  const memOnly = n.cpus.length === 0 && n.hasMemory;
  const cpus = t.cpus.filter((c) => c.node === n.id);
  const pkgs = [...new Set(cpus.map((c) => c.package).filter((p): p is number => p !== null))].sort((a, b) => a - b);
  const kind = memOnly ? ' - memory only' : '';
  const packages = pkgs.length > 0 ? ` · package ${pkgs.join(',')}` : '';
  const tier = n.memoryTier !== null ? ` · tier ${n.memoryTier}` : '';
  const title = `Node ${n.id}${kind}${packages}${tier}`;
  const cores = coresOf(
    cpus.length > 0
      ? cpus
      : n.cpus.map((id) => ({
          id,
          node: n.id,
          online: true,
          package: null,
          die: null,
          cluster: null,
          core: null,
          siblings: [],
          l3: [],
          allowed: true,
        })),
  );
  const grid = cpuGrid(cores, x + PAD, y + PAD + LINE + 34);
  const devices = t.devices.filter((d) => d.node === n.id);
  const cacheY = y + PAD + LINE + 34 + grid.height + (grid.height > 0 ? 4 : 0);
  // The caches and L3 groups (topo's text lines), one line each, under the CPUs.
  const cacheText = cacheLines(
    t,
    cpus.filter((c) => c.online),
  )
    .flatMap((l) => l.split('; ')) // a box is ~60 characters wide
    .map((l, i) => text(x + PAD, cacheY + 11 + i * 14, l, { class: 'caches' }));
  const devY = cacheY + cacheText.length * 14;
  const devs = devices.map((d, i) =>
    text(x + PAD, devY + 12 + i * LINE, deviceLabel(d), { class: `device ${d.kind}` }),
  );
  const height = devY - y + devices.length * LINE + PAD;
  const body = [
    rect(x, y, BOX_W, height, { class: memOnly ? 'node-box memory-only' : 'node-box', rx: 6 }),
    text(x + PAD, y + PAD + 12, title, { class: 'node-title' }),
    memoryBar(n, x + PAD, y + PAD + LINE + 4),
    grid.svg,
    ...cacheText,
    ...devs,
  ];
  return { svg: el('g', { class: 'node', id: `node-${n.id}`, 'data-node': n.id }, ...body), height };
}
